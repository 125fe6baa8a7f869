"""Host profiles: load, validate (schema + against the machine), resolve.

A profile is resolved once, before any job, into plain data: tiers with their
kinds and nodes, and concrete CPU lists for applications and antagonists. Every
problem raises :class:`ConfigError` with one message naming the file and the
problem.
"""

from __future__ import annotations

import copy
import csv
import functools
import os
from pathlib import Path

import jsonschema
import yaml

from . import ConfigError, cpulist, curvecheck, topology

REPO = Path(__file__).resolve().parents[2]
# the Snakefile's own `configfile:`, which every --configfile is merged over (merge_config)
QUICK_CONFIG = REPO / "workflows" / "config" / "quick.yaml"
HOSTS = REPO / "hosts"
SCHEMA = HOSTS / "schema.yaml"


def _model_curve(c: str, path: Path, where: str) -> str:
    """A model tier's curve spec with its file resolved against the profile's directory."""
    if c.startswith("param:"):
        return c
    cp = Path(c) if Path(c).is_absolute() else (path.parent / c)
    if not cp.exists():
        raise ConfigError(f"{where}: curve {c!r} not found (looked for {cp})")
    return str(cp.resolve())


LABEL_TOLERANCE = 0.05  # a tier's unloaded_latency_ns label may differ this much from its curve's


def _model_tier_curve(c: str, where: str, label: float | None, notes: list[str]) -> dict[float, float]:
    """The curve loaded as tiersim will read it and judged plausible (curvecheck); what was dropped
    goes into ``notes``. A latency label must agree with the curve. Returns the unloaded latency per
    read ratio."""
    try:
        curve = curvecheck.load_for_tiersim(c)
        bad = curvecheck.implausible(curve)
    except curvecheck.CurveError as e:
        raise ConfigError(f"{where}: {e}") from None
    if bad:
        raise ConfigError(f"{where}: implausible curve: {bad}")
    notes.append(curve.summary())
    u = curve.unloaded()
    derived = curvecheck.unloaded_at(u, 1.0)
    if label is not None and abs(label - derived) > LABEL_TOLERANCE * derived:
        raise ConfigError(f"{where}: unloaded_latency_ns {label:g} contradicts its curve, whose unloaded latency at "
                          f"reads only is {derived:.4g} ns ({c}); drop the label (it is derived from the curve) or "
                          "fix the curve")
    return u


def _check_tier_order(default: dict[float, float], others: list[tuple[str, dict[float, float]]]) -> None:
    """tiersim needs the default tier faster than every other curve (``(where, curve)``), at reads only and at 1:1."""
    for where, a in others:
        for rr in (1.0, 0.5):
            ld, la = curvecheck.unloaded_at(default, rr), curvecheck.unloaded_at(a, rr)
            if not ld < la:
                raise ConfigError(f"{where}: the default tier's unloaded latency ({ld:g} ns at read ratio {rr:g}) "
                                  f"must be below this alternate curve's ({la:g} ns); are the curves swapped?")


def _where(err: jsonschema.ValidationError) -> str:
    path = "/".join(str(p) for p in err.absolute_path)
    return path or "(top level)"


def find(name_or_path: str) -> Path:
    """A profile name (hosts/NAME.yaml) or a path to a YAML file."""
    p = Path(name_or_path)
    candidates = [p] if p.suffix in (".yaml", ".yml") or os.sep in name_or_path else []
    candidates += [HOSTS / f"{name_or_path}.yaml", HOSTS / f"{name_or_path}.yml"]
    for c in candidates:
        if c.is_file():
            return c
    known = sorted(q.stem for q in HOSTS.glob("*.yaml") if q.name != "schema.yaml")
    raise ConfigError(f"host profile {name_or_path!r} not found (known profiles: {', '.join(known)}; or give a path to a .yaml file)")


# PyYAML's safe loader in C (libyaml) where its wheel has it, as PyPI's do: the same documents, in
# ~1/8 of the time (a plan reads ~20 files in every Snakemake parse and CLI call)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: Path, what: str) -> dict:
    try:
        with open(path) as f:
            data = yaml.load(f, Loader=YAML_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        loc = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{what} {path}: not valid YAML{loc}: {problem}") from None
    except OSError as e:
        raise ConfigError(f"{what} {path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{what} {path}: not UTF-8 text (byte {e.start}: {e.object[e.start:e.start + 1]!r})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{what} {path}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def _fill_defaults(schema: dict, data: dict) -> None:
    for key, sub in schema.get("properties", {}).items():
        if key not in data and "default" in sub:
            data[key] = copy.deepcopy(sub["default"])
        elif key not in data and sub.get("type") == "object" and "properties" in sub:
            data[key] = {}
        if isinstance(data.get(key), dict) and sub.get("type") == "object":
            _fill_defaults(sub, data[key])


def config_schema() -> dict:
    """The experiment config's schema: the core keys, with every registered family's block
    (families/<name>/schema.yaml) as ``properties/<name>``, the tiering systems' registry's names put
    in where a block says ``$systems`` or ``$baselines`` (:func:`systems.fill_schema`)."""
    import families  # noqa: PLC0415 - the registry imports family modules, which import the harness
    import systems  # noqa: PLC0415

    schema = load_yaml(REPO / "workflows/config/schema.yaml", "schema")
    for name in families.FAMILIES:
        schema["properties"][name] = systems.fill_schema(load_yaml(families.schema_path(name), "schema"))
    return schema


def validate_schema(data: dict, schema: Path | dict, what: str) -> dict:
    if not isinstance(schema, dict):
        schema = load_yaml(schema, "schema")
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    if errors:
        e = errors[0]
        deeper = [c for c in e.context or [] if len(c.absolute_path) > len(e.absolute_path)]
        if e.validator in ("oneOf", "anyOf") and deeper:  # a list's bad item, not "valid under none of"
            e = max(deeper, key=lambda c: len(c.absolute_path))
        msg = e.message
        if e.validator == "additionalProperties":
            msg = msg.replace("Additional properties are not allowed", "unknown key")
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise ConfigError(f"{what}: {_where(e)}: {msg}{more}")
    data = copy.deepcopy(data)
    _fill_defaults(schema, data)
    return data


def _has_str(value) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, dict):
        return any(_has_str(v) for v in value.values())
    return isinstance(value, list) and any(_has_str(v) for v in value)


def _valid(value, schema: dict) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def coerce_strings(value, schema: dict | None):
    """``value`` with each string that ``schema`` rejects, but accepts as YAML reads it, replaced by
    what YAML reads (``'false'`` -> False, ``'40'`` -> 40, ``'[0, 1]'`` -> [0, 1]).

    Snakemake parses a ``--config`` value such as ``characterize='{enabled: false}'`` with PyYAML's
    BaseLoader (snakemake/cli.py, ``parse_config``): the mapping is kept but every scalar inside it is
    a string, which the schema would refuse ("'false' is not of type 'boolean'"). A string the
    schema accepts as it is (a size such as ``512M``, a host name) is never touched; one it refuses
    either way is replaced too, so that the schema's message is about the value meant."""
    if not isinstance(schema, dict) or not _has_str(value):
        return value
    if isinstance(value, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        value = {k: coerce_strings(v, props.get(k, extra if isinstance(extra, dict) else None)) for k, v in value.items()}
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        value = [coerce_strings(v, schema["items"]) for v in value]
    for branch in (*schema.get("anyOf", ()), *schema.get("oneOf", ())):
        c = coerce_strings(value, branch)
        if c != value and _valid(c, branch):
            return c
    if isinstance(value, str) and not _valid(value, schema):
        try:
            v = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        # (also a value YAML reads that the schema then refuses, where the schema takes no string:
        # '9' past a maximum of 3 is then named as 9, not "'9' is not of type 'number'"; a string
        # the schema refuses for its pattern, e.g. '0x0', stays one)
        types = schema.get("type") or []
        types = [types] if isinstance(types, str) else types
        if v is not None and (_valid(v, schema) or (not isinstance(v, str) and types and "string" not in types)):
            return v
    return value


def merge_config(config: dict, over: dict) -> dict:
    """``over`` merged into ``config`` (in place, and returned) as Snakemake merges a --configfile
    over the Snakefile's own (snakemake.utils.update_config): a mapping key by key, recursively;
    anything else, a list included, replaced whole."""
    for k, v in over.items():
        if isinstance(v, dict):
            config[k] = merge_config(config[k] if isinstance(config.get(k), dict) else {}, v)
        else:
            config[k] = v
    return config


def validate_config(config: dict) -> dict:
    """Validate an experiment config against the composed schema (:func:`config_schema`), filling
    defaults; strings from ``--config`` are read as YAML first where the schema asks for another
    type (:func:`coerce_strings`)."""
    schema = config_schema()
    config = validate_schema(coerce_strings(config, schema), schema, "experiment config")
    if config["sources"] and not Path(config["sources"]).is_dir():
        raise ConfigError(f"experiment config: sources: {config['sources']!r} is not a directory (pinned upstream archives)")
    import families  # noqa: PLC0415 - (as in config_schema)

    bad = [f for f in config["measure_alone"] if f != "all" and f not in families.FAMILIES]
    if bad:
        raise ConfigError(f"experiment config: measure_alone: no family {bad[0]!r} (families: "
                          f"{', '.join(families.FAMILIES)}; or all)")
    return config


def host_args(config: dict) -> list[str]:
    """The host profile arguments a run plans: the fleet ``hosts`` when given, else ``host``."""
    hosts = config.get("hosts") or []
    if isinstance(hosts, str):  # --config hosts=a,b
        hosts = [h.strip() for h in hosts.split(",") if h.strip()]
        config["hosts"] = hosts
    if not isinstance(hosts, list):
        raise ConfigError(f"experiment config: hosts: a list of host profiles, not {hosts!r}")
    args = [str(h) for h in hosts] or [str(config.get("host") or "auto")]
    for a in args:
        find(a)  # an unknown profile is named here, before anything else
    return args


def fleet_name(names: list[str]) -> str:
    """A fleet's results directory name: its hosts' names, sorted, joined by '+'."""
    return "+".join(sorted(names))


def _resolve_cpus(spec, facts: dict, default_pool: list[int], label: str, src: str) -> list[int] | None:
    if spec in (None, "auto"):
        return None
    cpus = cpulist.parse(spec, f"{src}: cpus/{label}")
    online = set(facts["online_cpus"]) or {c for n in facts["nodes"].values() for c in n["cpus"]}
    bad = [c for c in cpus if c not in online]
    if bad:
        raise ConfigError(
            f"{src}: cpus/{label}: CPU {cpulist.format(bad)} does not exist on this machine "
            f"(online CPUs: {cpulist.format(sorted(online))})"
        )
    allowed = set(facts.get("allowed_cpus") or online)
    bad = [c for c in cpus if c not in allowed]
    if bad:
        raise ConfigError(f"{src}: cpus/{label}: CPU {cpulist.format(bad)} is outside this process's affinity mask ({cpulist.format(sorted(allowed))})")
    if not cpus:
        raise ConfigError(f"{src}: cpus/{label}: empty CPU list")
    return cpus


def load_profile(name_or_path: str) -> tuple[Path, str, dict]:
    """A profile's path, its name for messages and its validated data (defaults filled in)."""
    path = find(name_or_path)
    src = f"host profile {path.name if path.parent == HOSTS else path}"
    return path, src, validate_schema(load_yaml(path, "host profile"), SCHEMA, src)


def cluster_of(name_or_path: str) -> str | None:
    """A fleet host's sbatch/srun options (``cluster/slurm_extra``: its measured points and its facts
    run on that SLURM node), or None for a host measured where snakemake runs."""
    _, src, data = load_profile(name_or_path)
    extra = (data.get("cluster") or {}).get("slurm_extra")
    if extra and (data.get("runner") or {}).get("kind"):
        raise ConfigError(f"{src}: cluster and runner: a guest host runs where snakemake runs, not on a cluster node")
    return extra or None


def runner_of(name_or_path: str) -> dict | None:
    """The profile's ``runner`` block (a guest host), paths made absolute; None for a plain host."""
    path, src, data = load_profile(name_or_path)
    r = data.get("runner")
    if not (r and r.get("kind")):  # defaults fill an empty block for every profile
        return None
    r = dict(r, source=src)
    for key in ("launcher", "config"):
        if r.get(key):
            p = Path(r[key]) if Path(r[key]).is_absolute() else HOSTS / r[key]
            if not p.is_file():
                raise ConfigError(f"{src}: runner/{key}: {r[key]!r} not found (looked for {p.resolve()})")
            r[key] = str(p.resolve())
    return r


# A character device's sysfs directory is /sys/dev/char/<major>:<minor> (Documentation/ABI/testing/
# sysfs-dev); its `subsystem` link names the bus or class it is on. A device DAX instance is on the
# dax bus (/sys/bus/dax/devices/daxX.Y: Documentation/ABI/testing/sysfs-bus-dax) or, bound to the
# older dax_pmem_compat driver (Linux 5.1-5.15), in the dax class (/sys/class/dax:
# Documentation/ABI/obsolete/sysfs-class-dax; drivers/dax/bus.c sets dev->bus or dev->class).
SYS_DEV_CHAR = Path("/sys/dev/char")


# A file's DAX state: statx(2)'s STATX_ATTR_DAX (include/uapi/linux/stat.h: 0x00200000, "File is
# currently in DAX state"), which fs/stat.c (vfs_getattr_nosec) sets where IS_DAX(inode), since Linux
# 5.8; later kernels' fs/stat.c also always sets the bit in stx_attributes_mask, so there a clear
# attribute says "not DAX" (before that, it says nothing). Only regular files are DAX (fs/ext4/inode.c, ext4_should_enable_dax: not S_ISREG -> false),
# so a directory is judged by a file made in it, as memchar and kv-pmem make theirs. Where the kernel
# says nothing (before 5.8, when the only way was the mount's whole-filesystem "dax" option) the
# mount's super options decide: "dax" or "dax=always" (Documentation/filesystems/dax.rst).
STATX_ATTR_DAX = 0x00200000
_AT_FDCWD = -100
_STATX_BASIC_STATS = 0x7FF
# struct statx (include/uapi/linux/stat.h): __u64 stx_attributes at byte 8, stx_attributes_mask at 56
_STX_ATTRIBUTES, _STX_ATTRIBUTES_MASK, _STATX_SIZE = 8, 56, 256


def statx_dax(path: Path) -> bool | None:
    """Whether the kernel says the file ``path`` is in the DAX state; None where it does not say
    (no statx in the C library, an error, or a kernel that reports no DAX state)."""
    import ctypes  # noqa: PLC0415
    import struct  # noqa: PLC0415

    fn = getattr(ctypes.CDLL(None, use_errno=True), "statx", None)
    if fn is None:
        return None
    buf = ctypes.create_string_buffer(_STATX_SIZE)
    if fn(_AT_FDCWD, os.fsencode(path), 0, _STATX_BASIC_STATS, buf) != 0:
        return None
    attrs = struct.unpack_from("=Q", buf, _STX_ATTRIBUTES)[0]
    mask = struct.unpack_from("=Q", buf, _STX_ATTRIBUTES_MASK)[0]
    if attrs & STATX_ATTR_DAX:
        return True
    return False if mask & STATX_ATTR_DAX else None


@functools.cache
def _not_dax_file(path: str) -> str | None:
    """Why the file or directory ``path`` is no DAX tier's (None: it is one): see STATX_ATTR_DAX."""
    import tempfile  # noqa: PLC0415

    from .memcg import mount_of  # noqa: PLC0415

    p = Path(path)
    probe = None
    if p.is_dir():
        try:
            fd, probe = tempfile.mkstemp(prefix=".tierbench-dax-probe-", dir=p)
            os.close(fd)
        except OSError as e:
            return f"is a directory in which no file can be made to check it is DAX ({e.strerror})"
    try:
        state = statx_dax(Path(probe or p))
    finally:
        if probe:
            os.unlink(probe)
    what = "a file made in it is" if probe else "it is"
    if state:
        return None
    m = mount_of(p)
    opts = m[2].split(",") if m else []
    if state is None and ("dax" in opts or "dax=always" in opts):
        return None
    where = f"{m[1]} on {m[0]}, mounted {m[2] or 'without options'}" if m else "a filesystem this process cannot see"
    how = "statx reports no STATX_ATTR_DAX" if state is False else "the kernel does not report DAX state and the mount has no dax option"
    return (f"is not DAX: {what} in the page cache ({how}; {where}): mount the PMem namespace's filesystem "
            "with -o dax=always (or dax=inode, with the directory's DAX flag set: Documentation/filesystems/dax.rst), "
            "or name its device DAX instance (/dev/daxX.Y)")


def _not_dax(path: Path) -> str | None:
    """Why ``path`` cannot be a DAX tier's (None: it can): a device DAX character device, or a file
    or directory on a filesystem whose files are DAX (:func:`_not_dax_file`)."""
    import stat  # noqa: PLC0415

    st = path.stat()
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return _not_dax_file(str(path))
    if stat.S_ISCHR(st.st_mode):
        sub = SYS_DEV_CHAR / f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}" / "subsystem"
        if sub.exists() and sub.resolve().name == "dax":
            return None
        return (f"is a character device but not a device DAX instance (its {sub} is "
                f"{sub.resolve() if sub.exists() else 'absent'}, not the dax bus or class)")
    return "is neither a device DAX instance (/dev/daxX.Y) nor a file or directory on a DAX filesystem"


PUBLISHED = REPO / "analysis" / "reference" / "published_numbers.csv"
# a tier's keys that only one kind of tier reads (hosts/schema.yaml)
KIND_OF_KEY = {"node": "numa", "curve": "model", "capacity_gib": "model", "unloaded_latency_ns": "model", "path": "dax"}


@functools.cache
def _published_sources() -> frozenset[str]:
    """The sources of published_numbers.csv, read once (every profile a run resolves asks)."""
    with open(PUBLISHED, newline="") as f:
        return frozenset(r["source"] for r in csv.DictReader(f))


def _check_sources(prof: dict, src: str) -> None:
    """comparable_to and calibrated_on name sources of the published numbers (a typo would turn
    scoring off, or mark nothing as a calibration target, without a word)."""
    known = _published_sources()
    named = [("comparable_to", s) for s in prof.get("comparable_to") or []]
    named += [(f"calibrated_on/{i}/source", c.get("source")) for i, c in enumerate(prof.get("calibrated_on") or [])]
    for key, s in named:
        if s is not None and s not in known:
            raise ConfigError(f"{src}: {key}: {s!r} is no source of {PUBLISHED.relative_to(REPO)} "
                              f"(sources: {', '.join(sorted(known))})")


# what results/ holds beside the hosts' directories (results/<name>/)
RESERVED_NAMES = {"fleet": "the fleets' comparisons", "README.md": "what results/ holds"}


def resolve(name_or_path: str, facts: dict) -> dict:
    """Load, validate and resolve a profile against the machine's facts."""
    path, src, data = load_profile(name_or_path)
    prof = dict(data)
    prof["source"] = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)
    if prof["name"] == "auto":
        prof["name"] = facts["hostname"]
    _check_sources(prof, src)
    if prof["name"] in RESERVED_NAMES:  # results/<name>/ is the host's own
        raise ConfigError(f"{src}: name: {prof['name']!r} is taken by results/{prof['name']} "
                          f"({RESERVED_NAMES[prof['name']]}): give the profile another name")
    if not (prof.get("tier_setup") or {}).get("setup"):  # absent (filling defaults made it {timeout_s})
        prof.pop("tier_setup", None)

    tiers = list(prof.get("tiers") or [])
    nodes = {int(k): v for k, v in facts["nodes"].items()}
    if prof.get("detect") and not tiers:
        mem_nodes = [n for n in sorted(nodes) if nodes[n]["memory_mib"] > 0]
        # Nodes with CPUs come first: the default tier is local DRAM.
        mem_nodes.sort(key=lambda n: (not nodes[n]["cpus"], n))
        for i, n in enumerate(mem_nodes):
            tiers.append({"name": "default" if i == 0 else ("alternate" if i == 1 else f"tier{i}"), "kind": "numa", "node": n})
    if not tiers:
        raise ConfigError(f"{src}: tiers: no tiers given and detect is false")

    names = [t["name"] for t in tiers]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"{src}: tiers: duplicate tier name {', '.join(dup)}")
    # model curves' unloaded latency per read ratio: the default tier's, and (where, curve) of the others
    default_unloaded: dict[float, float] | None = None
    others: list[tuple[str, dict[float, float]]] = []
    notes: list[str] = []  # what loading each model curve dropped, said once before the run
    for i, t in enumerate(tiers):
        where = f"{src}: tiers/{i} ({t['name']})"
        kind = t["kind"]
        for key in sorted(set(t) & set(KIND_OF_KEY)):
            if KIND_OF_KEY[key] != kind:  # (it would be ignored: hosts/schema.yaml says whose it is)
                raise ConfigError(f"{where}: {key} is for a {KIND_OF_KEY[key]} tier, and this one is {kind}")
        if kind == "numa":
            if "node" not in t:
                raise ConfigError(f"{where}: a numa tier needs 'node'")
            n = t["node"]
            if n not in nodes:
                raise ConfigError(f"{where}: NUMA node {n} does not exist on this machine (nodes: {', '.join(map(str, sorted(nodes)))})")
            if nodes[n]["memory_mib"] <= 0:
                raise ConfigError(f"{where}: NUMA node {n} has no memory")
            mems = facts.get("allowed_mems")
            if mems is not None and n not in mems:  # (hostdetect.allowed_mems: the cpuset's memory nodes)
                raise ConfigError(f"{where}: NUMA node {n} is outside this process's cpuset (Mems_allowed_list "
                                  f"{cpulist.format(mems)}): memory cannot be placed there")
        elif kind == "model":
            if "curve" not in t:
                raise ConfigError(f"{where}: a model tier needs 'curve'")
            c = _model_curve(t["curve"], path, where)
            u = _model_tier_curve(c, where, t.get("unloaded_latency_ns"), notes)
            # the tier's unloaded latency is its curve's at reads only (a label only names it)
            t = dict(t, curve=c, curve_source=t["curve"], unloaded_latency_ns=round(curvecheck.unloaded_at(u, 1.0), 1))
            tiers[i] = t
            if t["name"] == "default":
                default_unloaded = u
            else:
                others.append((where, u))
        elif kind == "dax":
            if "path" not in t:
                raise ConfigError(f"{where}: a dax tier needs 'path'")
            if not Path(t["path"]).exists():
                raise ConfigError(f"{where}: DAX path {t['path']!r} does not exist")
            if why := _not_dax(Path(t["path"])):
                raise ConfigError(f"{where}: DAX path {t['path']!r} {why}")
    prof["tiers"] = tiers
    kinds = {t["kind"] for t in tiers}
    if "model" in kinds and kinds != {"model"}:
        raise ConfigError(f"{src}: tiers: model tiers cannot be mixed with real ({', '.join(sorted(kinds - {'model'}))}) "
                          "tiers; a profile describes either modelled tiers or this machine's")
    numa_nodes = [t["node"] for t in tiers if t["kind"] == "numa"]
    twice = sorted({n for n in numa_nodes if numa_nodes.count(n) > 1})
    if twice:
        raise ConfigError(f"{src}: tiers: NUMA node {', '.join(map(str, twice))} is given to more than one tier")
    prof["backend"] = "model" if kinds == {"model"} else "numa"
    if prof.get("tier_setup") and (prof["backend"] != "numa" or prof.get("runner")):
        what = "a guest host places its nodes itself (hosts/qemu/guest.py --topology)" if prof.get("runner") else \
            "a profile of modelled tiers has no kernel memory tiers"
        raise ConfigError(f"{src}: tier_setup: {what}; tier_setup is for a host whose points run on it")
    variants = {}
    for ns, c in (prof.get("alternate_variants") or {}).items():
        if prof["backend"] != "model":
            raise ConfigError(f"{src}: alternate_variants: only model profiles have curve variants")
        where = f"{src}: alternate_variants/{ns}"
        c = _model_curve(c, path, where)
        others.append((where, _model_tier_curve(c, where, float(ns), notes)))
        variants[int(ns)] = c
    prof["alternate_variants"] = variants
    prof["curve_notes"] = notes
    if default_unloaded is not None:
        _check_tier_order(default_unloaded, others)
    # Tools and storage are used on this machine whatever the tiers are.
    tools = dict(prof.get("tools") or {})
    for key, p in tools.items():
        if not (os.path.isfile(p) and os.access(p, os.X_OK)):
            raise ConfigError(f"{src}: tools/{key}: {p!r} is not an executable file")
    prof["tools"] = tools
    st = prof.get("storage") or {}
    if "directory" in st and not Path(st["directory"]).is_dir():
        raise ConfigError(f"{src}: storage/directory: {st['directory']!r} is not an existing directory")
    if "device" in st and not Path(st["device"]).is_block_device():
        raise ConfigError(f"{src}: storage/device: {st['device']!r} is not a block device")
    if prof["backend"] == "model":
        # CPUs of a modelled host describe that host, not this machine: not checked here.
        cpus = prof.get("cpus") or {}
        if cpus.get("cores_per_unit") == "auto":
            raise ConfigError(f"{src}: cpus/cores_per_unit: a model profile needs a number (the modelled host's cores per unit)")
        prof["cpus"] = {"app": [], "antagonist": [], "cores_per_unit": cpus.get("cores_per_unit", 5), "node": None}
        return prof

    cpus = prof.get("cpus") or {}
    default_node = next((t["node"] for t in tiers if t["kind"] == "numa"), None)
    pool_node = default_node if default_node is not None and nodes.get(default_node, {}).get("cpus") else min(
        (n for n in nodes if nodes[n]["cpus"]), default=0
    )
    allowed = set(facts.get("allowed_cpus") or [])
    pool = [c for c in nodes.get(pool_node, {"cpus": []})["cpus"] if not allowed or c in allowed]
    app = _resolve_cpus(cpus.get("app"), facts, pool, "app", src)
    ant = _resolve_cpus(cpus.get("antagonist"), facts, pool, "antagonist", src)
    mon = _resolve_cpus(cpus.get("monitor"), facts, pool, "monitor", src)
    siblings = {int(c): set(v) for c, v in (facts.get("smt_siblings") or {}).items()}
    if app is None and ant is None:
        # one hardware thread per core, the cores split in two: the application's hyperthread
        # siblings stay idle, never an antagonist's (they would share its core's caches and ports);
        # with MONITOR_MIN_CORES or more, the last core is kept for the monitors first
        cores = topology.one_thread_per_core(pool, siblings)
        if mon is None and len(cores) >= topology.MONITOR_MIN_CORES:
            mon, cores = cores[-1:], cores[:-1]
        half = max(1, (len(cores) + 1) // 2)
        app, ant = cores[:half], cores[half:]
    elif app is None:
        taken = topology.cores_of(ant, siblings)
        app = [c for c in topology.one_thread_per_core(pool, siblings) if c not in taken] or pool[:1]
    elif ant is None:
        taken = topology.cores_of(app, siblings)
        ant = [c for c in topology.one_thread_per_core(pool, siblings) if c not in taken]
    overlap = sorted(set(app) & set(ant))
    if overlap:
        raise ConfigError(f"{src}: cpus: CPU {cpulist.format(overlap)} is given to both app and antagonist")
    if mon is None:  # auto: a core of the pool neither the application nor the antagonists use
        taken = topology.cores_of(app + ant, siblings)
        mon = [c for c in topology.one_thread_per_core(pool, siblings) if c not in taken][:1]
    topology.check_split(app, ant, siblings, facts, default_node, src)
    topology.check_monitor(mon, app, ant, siblings, src)
    prof["cpus"] = {"app": app, "antagonist": ant, "monitor": mon, "cores_per_unit": cpus.get("cores_per_unit", 5),
                    "node": pool_node}
    prof["topology_notes"] = topology.notes(facts, [t["node"] for t in tiers if t["kind"] == "numa"])
    if not mon:
        prof["topology_notes"].append("no core is left for the monitors (tierd, counter collectors): they run on any "
                                      "CPU, beside the application and the antagonists (cpus/monitor names one)")
    return prof


def tiers_text(prof: dict) -> str:
    """The tiers a profile describes, for figure titles and tables: each tier's name and what it is
    (a model tier: its curve source and unloaded latency; a NUMA node; a DAX path)."""
    out = []
    for t in prof["tiers"]:
        if t["kind"] == "model":
            out.append(f"{t['name']} = {t.get('curve_source', t['curve'])} ({t['unloaded_latency_ns']:g} ns)")
        elif t["kind"] == "numa":
            out.append(f"{t['name']} = node {t['node']}")
        else:
            out.append(f"{t['name']} = {t['kind']} {t.get('path', '')}".rstrip())
    return "; ".join(out)


def plan_info(prof: dict):
    """What a family's plan says about the profile its results ran on (FamilyPlan.info, a
    :class:`workflows.harness.plan.PlanInfo`): its name, tiers, the published numbers it was
    calibrated on, and the published sources its hardware matches (``comparable_to``: only those
    are scored)."""
    from .plan import PlanInfo  # noqa: PLC0415

    return PlanInfo(profile=prof["name"], tiers=tiers_text(prof), calibrated_on=prof.get("calibrated_on", []),
                    comparable_to=list(prof.get("comparable_to") or []), curve_notes=prof.get("curve_notes", []))
