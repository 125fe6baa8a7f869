// SPDX-License-Identifier: MIT
/*
 * The random generator is the one tiersim and memchar had each in their
 * own copy: the same values as theirs, recorded from those copies, so that
 * tiersim's model streams and memchar's chains are unchanged.
 */
#include <stdint.h>

#include "check.h"
#include "tbutil.h"

int main(void)
{
	static const uint64_t sim_next[] = {
		0xd561b363f2d31b4cULL, 0x29b4f1ca02cb30d3ULL, 0x0b7633ae5f4cab68ULL,
	};
	static const uint64_t mc_next[] = {
		0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL,
	};
	static const uint64_t mc_below7[] = { 4, 4, 1, 2, 0, 5 };
	static const uint64_t mc_below_big[] = {
		0x9556615f775fbc3dULL, 0xaeb53b340c103971ULL, 0x4a69db9873af8965ULL,
		0x52480865a4b42742ULL,
	};
	struct rng r;
	int i;

	/* tiersim's streams: rng_seed(seed, stream) and every draw it uses */
	rng_seed(&r, 1, 2);
	for (i = 0; i < 3; i++)
		CHECK(rng_next(&r) == sim_next[i]);
	CHECK(rng_below(&r, 1000) == 345 && rng_below(&r, 1000) == 393 &&
	      rng_below(&r, 1000) == 14);
	CHECK(rng_uniform(&r) == 0.11710128169254119);
	CHECK(rng_uniform_pos(&r) == 0.93105985006465208);
	CHECK(rng_normal(&r) == -2.3031813320101504);
	CHECK(rng_normal(&r) == 0.33984867439103039);
	CHECK(rng_exp(&r, 2.0) == 0.56926555761771358);
	CHECK(rng_poisson(&r, 3) == 4);
	CHECK(rng_poisson(&r, 100) == 109);

	/* memchar's: seed alone (stream 0), unbiased bounded draws */
	rng_seed(&r, 42, 0);
	for (i = 0; i < 3; i++)
		CHECK(rng_next(&r) == mc_next[i]);
	for (i = 0; i < 6; i++)
		CHECK(rng_below_exact(&r, 7) == mc_below7[i]);
	for (i = 0; i < 4; i++)
		CHECK(rng_below_exact(&r, 3ULL << 62) == mc_below_big[i]);
	CHECK(rng_below_exact(&r, 1) == 0 && rng_below_exact(&r, 0) == 0);

	/* gups's splitmix64 */
	{
		uint64_t x = 0;

		CHECK(splitmix64(&x) == 0xe220a8397b1dcdafULL);
	}
	return T_PASS;
err:
	return T_FAIL;
}
