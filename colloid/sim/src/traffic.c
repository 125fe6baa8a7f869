// SPDX-License-Identifier: MIT
/*
 * traffic.c - the per-quantum closed-loop traffic fixed point.
 *
 *   X_a = N_a / (Z_a + p L_D + (1-p) L_A)          application
 *   X_b = N_b / (Z_b + L_D)                        antagonist (default tier)
 *   B_D = s_a p X_a + s_b X_b + M_D,   L_D = f_D(B_D)
 *   B_A = s_a (1-p) X_a + M_A,         L_A = f_A(B_A)
 *
 * Outer bisection on X_a; for a given X_a the default tier is solved by an
 * inner bisection on B_D (the antagonist's demand falls as L_D rises), the
 * alternate tier directly.  Every map is monotone, so the root is unique and
 * bisection finds it deterministically.  Above a tabulated curve's last
 * point the closed-loop wall applies: bandwidth stays at B_max and latency
 * follows from Little's law, L = N s / (B_max - other traffic) - Z.
 */
#include <errno.h>
#include <math.h>

#include "tiersim.h"

#define REL_TOL 1e-11
#define MAX_IT 200

struct ctx {
	const struct curve_set *d, *a;
	const struct traffic_in *in;
	double bmax_d, bmax_a, lmax_d;
	double md, ma;
};

/*
 * Illinois (modified regula falsi) root of an increasing function on
 * [lo, hi] with f(lo) <= 0 <= f(hi): keeps a bracket like bisection, so it
 * is as robust and deterministic, but needs far fewer evaluations.
 */
typedef double (*fn_t)(const struct ctx *c, double arg, double x);

static double root_illinois(fn_t f, const struct ctx *c, double arg, double lo, double hi,
			    double tol)
{
	double flo = f(c, arg, lo), fhi = f(c, arg, hi), x = lo;
	int side = 0, it;

	if (flo >= 0)
		return lo;
	if (fhi <= 0)
		return hi;
	for (it = 0; it < MAX_IT; it++) {
		double fx;

		x = (lo * fhi - hi * flo) / (fhi - flo);
		if (!(x > lo && x < hi))
			x = 0.5 * (lo + hi);
		fx = f(c, arg, x);
		if (fx == 0)
			return x;
		if (fx < 0) {
			lo = x;
			flo = fx;
			if (side == -1)
				fhi *= 0.5;
			side = -1;
		} else {
			hi = x;
			fhi = fx;
			if (side == 1)
				flo *= 0.5;
			side = 1;
		}
		if (hi - lo <= tol)
			break;
		/* stall guard: fall back to a bisection step now and then */
		if ((it & 7) == 7) {
			double m = 0.5 * (lo + hi), fm = f(c, arg, m);

			if (fm < 0) {
				lo = m;
				flo = fm;
			} else {
				hi = m;
				fhi = fm;
			}
			side = 0;
		}
	}
	return 0.5 * (lo + hi);
}

static double fd(const struct ctx *c, double xa, double b)
{
	const struct traffic_in *in = c->in;
	double base = in->sa * in->p * xa + c->md;

	return b - base - in->sb * in->nb / (in->zb + curve_latency(c->d, in->rr_d, b));
}

/* default tier for a given app throughput: latency, bandwidth, wall flag */
static double solve_d(const struct ctx *c, double xa, double *bd, int *wall)
{
	const struct traffic_in *in = c->in;
	double base = in->sa * in->p * xa + c->md;
	double lo, hi, f_hi;

	*wall = 0;
	if (base >= c->bmax_d) {
		*bd = c->bmax_d;
		*wall = 1;
		return INFINITY;
	}
	if (in->nb <= 0) {
		*bd = base;
		return curve_latency(c->d, in->rr_d, base);
	}
	if (isfinite(c->lmax_d)) {
		f_hi = c->bmax_d - base - in->sb * in->nb / (in->zb + c->lmax_d);
		if (f_hi <= 0) {
			/* antagonist wants more than the wall leaves: Little's law */
			double l = in->sb * in->nb / (c->bmax_d - base) - in->zb;

			*bd = c->bmax_d;
			*wall = 1;
			return l > c->lmax_d ? l : c->lmax_d;
		}
	}
	lo = base;
	hi = c->bmax_d * (1 - 1e-12);
	*bd = root_illinois(fd, c, xa, lo, hi, REL_TOL * c->bmax_d);
	return curve_latency(c->d, in->rr_d, *bd);
}

static double lat_a(const struct ctx *c, double xa, double *ba)
{
	double b = c->in->sa * (1.0 - c->in->p) * xa + c->ma;

	*ba = b;
	if (b >= c->bmax_a)
		return INFINITY;
	return curve_latency(c->a, c->in->rr_a, b);
}

static double fouter(const struct ctx *c, double unused, double x)
{
	const struct traffic_in *in = c->in;
	double ld, la, bd, ba;
	int wall;

	(void)unused;
	ld = solve_d(c, x, &bd, &wall);
	la = lat_a(c, x, &ba);
	return x - in->na / (in->za + in->p * ld + (1 - in->p) * la);
}

int traffic_solve(const struct curve_set *d, const struct curve_set *a,
		  const struct traffic_in *in, struct traffic_out *out)
{
	struct ctx c = { .d = d, .a = a, .in = in };
	double p = in->p, lo, hi, cap_a = INFINITY, cap_d = INFINITY, l0, xa;
	double ld, la, bd, ba;
	int wall;

	if (!(p >= 0 && p <= 1) || !(in->na > 0) || !(in->za >= 0) || !(in->sa > 0) ||
	    !(in->nb >= 0) || !(in->zb >= 0) || !(in->sb > 0) || !(in->md >= 0) ||
	    !(in->ma >= 0))
		return -EINVAL;
	c.bmax_d = curve_bmax(d, in->rr_d);
	c.bmax_a = curve_bmax(a, in->rr_a);
	c.lmax_d = curve_lmax(d, in->rr_d);
	/* migration can never take a whole tier: the copy threads are closed
	 * loops too; keep them to at most half of the wall */
	c.md = fmin(in->md, 0.5 * c.bmax_d);
	c.ma = fmin(in->ma, 0.5 * c.bmax_a);

	l0 = fmin(curve_unloaded(d, in->rr_d), curve_unloaded(a, in->rr_a));
	hi = in->na / (in->za + l0);
	if (p < 1)
		cap_a = (c.bmax_a - c.ma) / (in->sa * (1 - p));
	if (p > 0)
		cap_d = (c.bmax_d - c.md) / (in->sa * p);
	hi = fmin(hi, fmin(cap_a, cap_d));
	lo = 0;
	out->wall_a = out->wall_d = 0;

	/* is the solution pinned at a cap (app alone saturating a tier)? */
	{
		double xt = hi * (1 - 1e-12), x2;

		ld = solve_d(&c, xt, &bd, &wall);
		la = lat_a(&c, xt, &ba);
		x2 = in->na / (in->za + p * ld + (1 - p) * la);
		if (x2 >= xt && (hi == cap_a || hi == cap_d)) {
			xa = hi;
			if (hi == cap_a) {
				ld = solve_d(&c, xa, &bd, &wall);
				la = (in->na / xa - in->za - p * ld) / (1 - p);
				ba = c.bmax_a;
				out->wall_a = 1;
				out->wall_d = wall;
			} else {
				la = lat_a(&c, xa, &ba);
				ld = (in->na / xa - in->za - (1 - p) * la) / p;
				bd = c.bmax_d;
				out->wall_d = 1;
			}
			goto done;
		}
	}
	xa = root_illinois(fouter, &c, 0, lo, hi * (1 - 1e-12), REL_TOL * hi);
	ld = solve_d(&c, xa, &bd, &wall);
	la = lat_a(&c, xa, &ba);
	out->wall_d = wall;
done:
	out->xa = xa;
	out->ld = ld;
	out->la = la;
	out->bd = bd;
	out->ba = ba;
	out->bmax_d = c.bmax_d;
	out->bmax_a = c.bmax_a;
	out->xb = in->nb > 0 ? in->nb / (in->zb + ld) : 0.0;
	if (!isfinite(ld) || !isfinite(la) || !isfinite(xa))
		return -ERANGE;
	return 0;
}
