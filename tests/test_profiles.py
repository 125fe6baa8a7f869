"""Host profiles and experiment configs are rejected up front with one clear message."""

from __future__ import annotations

import copy

import pytest

from workflows.harness import ConfigError, cpulist, hostdetect, plan, profile

FACTS = {
    "hostname": "testhost",
    "nodes": {"0": {"cpus": [0, 1, 2, 3], "memory_mib": 4096}, "1": {"cpus": [], "memory_mib": 8192},
              "2": {"cpus": [4, 5], "memory_mib": 0}},
    "memory_nodes": [0, 1],
    "cpu_nodes": [0, 2],
    "online_cpus": [0, 1, 2, 3, 4, 5],
    "allowed_cpus": [0, 1, 2, 3, 4, 5],
    "tools": {"fio": "/usr/bin/fio"},
}


def write(tmp_path, text: str):
    p = tmp_path / "host.yaml"
    p.write_text(text)
    return str(p)


def test_auto_profile_detects_tiers_and_splits_cpus():
    prof = profile.resolve("auto", FACTS)
    assert prof["name"] == "testhost"
    assert [(t["name"], t["node"]) for t in prof["tiers"]] == [("default", 0), ("alternate", 1)]
    assert prof["cpus"]["monitor"] == [3], "four cores: the last one kept for tierd and the collectors"
    assert prof["cpus"]["app"] == [0, 1] and prof["cpus"]["antagonist"] == [2]


def test_too_few_cores_leave_no_monitor_core_and_say_so():
    facts = {**FACTS, "nodes": {**FACTS["nodes"], "0": {"cpus": [0, 1, 2], "memory_mib": 4096}}}
    prof = profile.resolve("auto", facts)
    assert prof["cpus"]["monitor"] == [] and prof["cpus"]["app"] == [0, 1] and prof["cpus"]["antagonist"] == [2]
    assert any("no core is left for the monitors" in n for n in prof["topology_notes"])


def test_auto_profile_on_this_machine():
    facts = hostdetect.detect()
    prof = profile.resolve("auto", facts)
    assert prof["tiers"][0]["kind"] == "numa"
    assert set(prof["cpus"]["app"]) <= set(facts["online_cpus"])


@pytest.mark.parametrize(
    "text, needle",
    [
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 9}\n", "NUMA node 9 does not exist"),
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 2}\n", "NUMA node 2 has no memory"),
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 0}\ncpus: {app: '0-9'}\n", "CPU 6-9 does not exist"),
        ("name: x\ntiers: [\n", "not valid YAML"),
        ("name: x\nextra: 1\ntiers:\n  - {name: d, kind: numa, node: 0}\n", "unknown key"),
        ("name: x\ntiers:\n  - {name: d, kind: model, curve: 'param:L0=80', capacity_gib: -1}\n", "capacity_gib: -1 is less than or equal to the minimum"),
        ("name: x\ntiers:\n  - {name: d, kind: model, curve: missing.csv}\n", "curve 'missing.csv' not found"),
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 0}\ncpus: {app: '0-1', antagonist: '1-2'}\n", "given to both app and antagonist"),
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 0}\ncpus: {app: '1-0'}\n", "malformed entry"),
        ("name: 'bad name'\ntiers:\n  - {name: d, kind: numa, node: 0}\n", "name"),
        ("name: x\ntiers:\n  - {name: d, kind: numa}\n", "needs 'node'"),
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 0}\ntools: {mlc: /nonexistent/mlc}\n", "not an executable file"),
        ("- just\n- a list\n", "expected a mapping"),
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 0}\n  - {name: a, kind: numa, node: 0}\n",
         "NUMA node 0 is given to more than one tier"),
        ("name: x\ntiers:\n  - {name: d, kind: numa, node: 0}\n  - {name: a, kind: model, curve: 'param:L0=135,a=20,k=3,bsat=60000', capacity_gib: 72}\n",
         "model tiers cannot be mixed with real (numa) tiers"),
    ],
)
def test_bad_profiles_rejected(tmp_path, text, needle):
    with pytest.raises(ConfigError) as e:
        profile.resolve(write(tmp_path, text), FACTS)
    msg = str(e.value)
    assert needle in msg
    assert "\n" not in msg, "one line"
    assert "host.yaml" in msg, "names the file"


def test_a_tier_outside_the_cpuset_is_refused(tmp_path):
    """Memory cannot be placed on a node the process's cpuset leaves out (Mems_allowed_list):
    numactl --membind there fails mid-run, and a policy is silently narrowed to the allowed nodes."""
    f = copy.deepcopy(FACTS)
    f["allowed_mems"] = [0]
    text = "name: x\ntiers:\n  - {name: d, kind: numa, node: 0}\n  - {name: a, kind: numa, node: 1}\n"
    with pytest.raises(ConfigError, match=r"NUMA node 1 is outside this process's cpuset \(Mems_allowed_list 0\)"):
        profile.resolve(write(tmp_path, text), f)
    f["allowed_mems"] = [0, 1]
    assert [t["node"] for t in profile.resolve(write(tmp_path, text), f)["tiers"]] == [0, 1]


def test_unknown_profile_name_lists_known():
    with pytest.raises(ConfigError, match="not found .*known profiles: .*auto"):
        profile.resolve("no-such-host", FACTS)


def config(**over):
    base = {"scale": "t"}
    base.update(over)
    return profile.validate_config(base)


@pytest.mark.parametrize(
    "over, needle",
    [
        ({"bogus": 1}, "unknown key"),
        ({"characterize": {"latency": {"duration_s": -1}}}, "duration_s"),
        ({"characterize": {"bandwidth": {"ops": ["fly"]}}}, "fly"),
        ({"storage": {"iodepths": [0]}}, "iodepths/0"),
    ],
)
def test_bad_configs_rejected(over, needle):
    with pytest.raises(ConfigError, match=needle):
        config(**over)


def test_config_defaults_filled():
    c = config()
    assert c["host"] == "auto"
    assert c["characterize"]["objsize"]["sizes"][0] == 64


def test_config_strings_from_the_command_line_read_as_yaml():
    # what snakemake's --config makes of characterize='{enabled: false}' and friends: a mapping whose
    # scalars are all strings (PyYAML's BaseLoader, snakemake/cli.py parse_config)
    from snakemake.cli import parse_config  # noqa: PLC0415

    over = parse_config(["characterize={enabled: false}", "kv={threads: [1, 2], records: 1000}",
                         "tiering={intensities: [0, 1.5], contention: {working_set: 64M}}", "model_batch=40"])
    assert over["characterize"] == {"enabled": "false"}  # the premise: still a string here
    c = config(**over)
    assert c["characterize"]["enabled"] is False
    assert c["kv"]["threads"] == [1, 2] and c["kv"]["records"] == 1000
    assert c["tiering"]["intensities"] == [0, 1.5]
    assert c["tiering"]["contention"]["working_set"] == "64M"  # a string the schema wants stays one
    assert c["model_batch"] == 40
    with pytest.raises(ConfigError, match="kv/threads/0"):  # a string YAML cannot make valid is still named
        config(**parse_config(["kv={threads: [one]}"]))
    # a number past its bounds is named as the number it is, as it would be in a config file
    with pytest.raises(ConfigError, match="tiering/intensities/1: 9 is greater than the maximum of 3"):
        config(**parse_config(["tiering={intensities: [0, 9]}"]))
    with pytest.raises(ConfigError, match="tiering/duration_s: 0 is less than or equal to the minimum of 0"):
        config(**parse_config(["tiering={duration_s: 0}"]))
    # a string the schema wants, refused for its pattern, stays the string (YAML would read 0x0 as 0)
    with pytest.raises(ConfigError, match="overcommit/ffmpeg/size: '0x0' does not match"):
        config(**parse_config(["overcommit={ffmpeg: {size: 0x0}}"]))


def characterize_rows(c, facts=FACTS):
    return plan.build(c, plan.Host(profile.resolve("auto", facts), facts)).rows("characterize")


def test_plan_threads_and_injectors():
    small = {"real": {"working_set": "4G", "hot_set": "1G"}}  # node 1 of FACTS has 8 GiB
    rows = characterize_rows(config(tiering=small))
    idle = [r["point"] for r in rows if r["experiment"] == "idle_latency"]
    assert idle == ["c0-m0", "c0-m1", "c2-m0", "c2-m1"]
    argv = {f"{r['experiment']}/{r['point']}": r["run"]["scenario"]["roles"][0]["argv"] for r in rows}
    bw = argv["bandwidth/c0-m1/read"]
    assert bw[bw.index("--threads") + 1] == "1,2,4"
    ll = argv["loaded_latency/c0-m0/read"]
    assert ll[ll.index("--injectors") + 1] == "3"
    local = characterize_rows(config(characterize={"pairs": "local"}, tiering=small))
    assert [r["point"] for r in local if r["experiment"] == "idle_latency"] == ["c0-m0"]


def test_characterize_puts_one_thread_per_core_first():
    """With SMT siblings in the facts, memchar's latency thread, injectors and bandwidth threads get
    one thread per core first: no injector on the latency thread's sibling, and the auto injector
    count is one per other core (a core's threads share its caches and execution ports)."""
    small = {"real": {"working_set": "4G", "hot_set": "1G"}}
    f = copy.deepcopy(FACTS)
    cpus0 = f["nodes"]["0"]["cpus"]  # 4 CPUs: make them two cores of two threads each
    a, b, c, d = cpus0[:4]
    f["smt_siblings"] = {str(a): [a, c], str(c): [a, c], str(b): [b, d], str(d): [b, d]}
    rows = characterize_rows(config(tiering=small), f)
    argv = {f"{r['experiment']}/{r['point']}": r["run"]["scenario"]["roles"][0]["argv"] for r in rows}
    ll = argv["loaded_latency/c0-m0/read"]
    assert ll[ll.index("--cpus") + 1] == f"{a},{b},{c},{d}"
    assert ll[ll.index("--injectors") + 1] == "1"  # the other core only, not a sibling of the latency thread


def test_plan_rejects_too_many_threads():
    with pytest.raises(ConfigError, match="8 threads requested but node 2 has 2"):
        characterize_rows(config(characterize={"bandwidth": {"threads": [1, 8]}}), _only_node(2))


def _only_node(n):
    f = copy.deepcopy(FACTS)
    f["cpu_nodes"] = [n]
    return f


def test_cpulist_roundtrip():
    assert cpulist.parse("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    assert cpulist.format([0, 1, 2, 3, 8, 10, 11]) == "0-3,8,10-11"
    assert cpulist.parse(5) == [5]
    with pytest.raises(ConfigError):
        cpulist.parse("a-b")


def two_socket_facts(nodes=3):
    f = {"hostname": "big", "nodes": {}, "online_cpus": list(range(64)), "allowed_cpus": list(range(64))}
    f["nodes"]["0"] = {"cpus": list(range(32)), "memory_mib": 1 << 17}
    f["nodes"]["1"] = {"cpus": list(range(32, 64)), "memory_mib": 1 << 17}
    if nodes > 2:
        f["nodes"]["2"] = {"cpus": [], "memory_mib": 1 << 16}
    f["memory_nodes"] = [int(k) for k in f["nodes"]]
    f["cpu_nodes"] = [0, 1]
    f["tools"] = {"fio": "/usr/bin/fio"}
    return f


@pytest.mark.parametrize("path", sorted(p for p in profile.HOSTS.glob("*.yaml") if p.name != "schema.yaml"))
def test_shipped_profiles_are_schema_valid(path):
    data = profile.load_yaml(path, "host profile")
    profile.validate_schema(data, profile.SCHEMA, path.name)


@pytest.mark.parametrize("name", ["icelake-2s", "cxl-cpuless", "paper-testbed"])
def test_shipped_profiles_resolve_on_matching_hosts(name):
    prof = profile.resolve(name, two_socket_facts())
    assert len(prof["tiers"]) == 2
    if prof["backend"] == "numa":
        assert prof["cpus"]["app"] and prof["cpus"]["antagonist"]


def test_real_profile_rejected_on_this_machine_when_node_missing():
    facts = hostdetect.detect()
    if len(facts["memory_nodes"]) >= 2:
        pytest.skip("this machine has two memory nodes")
    with pytest.raises(ConfigError, match="NUMA node 1 does not exist"):
        profile.resolve("icelake-2s", facts)


CURVE_HEADER = "read_ratio,bandwidth_mbps,latency_ns\n"


def model_profile(tmp_path, alternate: str, variant: str | None = None, extra: str = "") -> str:
    """A two-tier model profile over the shipped default curve and the given alternate curve (plus ``extra`` text)."""
    default = profile.REPO / "hosts/curves/paper-default.csv"
    text = ("name: x\ntiers:\n"
            f"  - {{name: default, kind: model, curve: '{default}', capacity_gib: 24}}\n"
            f"  - {{name: alternate, kind: model, curve: '{alternate}', capacity_gib: 72}}\n")
    if variant:
        text += f"alternate_variants: {{'192': '{variant}'}}\n"
    return write(tmp_path, text + extra)


@pytest.mark.parametrize(
    "content, needle",
    [
        ("rr,bw,lat\n1,0,100\n1,10,200\n", "header must be read_ratio,bandwidth_mbps,latency_ns"),
        (CURVE_HEADER, "no data rows"),
        (CURVE_HEADER + "1,-5,100\n1,10,200\n", "fewer than 2 usable points"),  # a negative bandwidth is noise
        (CURVE_HEADER + "1.5,0,100\n1.5,10,200\n", "line 2: read_ratio must be 0..1"),
        (CURVE_HEADER + "1,abc,100\n1,10,200\n", "line 2: malformed row"),
        (CURVE_HEADER + "1,0,300\n", "fewer than 2 usable points"),
        (CURVE_HEADER + "1,0,300\n1,10,200\n", "fewer than 2 usable points"),  # latency falls as bandwidth rises
        (CURVE_HEADER + "1,0,100\n1,10,200\n", "only 2 usable points at read ratio 1"),  # too few to be measured
        (CURVE_HEADER + "# comment\n\n1,0,30\n1,4000,35\n1,9000,40\n", "must be below this alternate curve"),  # faster than default
    ],
)
def test_model_curve_contents_checked_before_jobs(tmp_path, content, needle):
    c = tmp_path / "alt.csv"
    c.write_text(content)
    with pytest.raises(ConfigError) as e:
        profile.resolve(model_profile(tmp_path, str(c)), FACTS)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg and "host.yaml" in msg


def test_model_curve_forms_accepted(tmp_path):
    mess = tmp_path / "mess"
    mess.mkdir()
    (mess / "bwlat_100.txt").write_text("0 140\n30000 150\n60000 400\n")
    (mess / "bwlat_50.txt").write_text("0 140\n25000 145\n50000 160\n")
    (mess / "notes.txt").write_text("ignored\n")
    prof = profile.resolve(model_profile(tmp_path, str(mess), variant="param:L0=192,a=20,k=3,bsat=42000"), FACTS)
    assert prof["backend"] == "model" and prof["alternate_variants"] == {192: "param:L0=192,a=20,k=3,bsat=42000"}


@pytest.mark.parametrize(
    "setup, needle",
    [
        (lambda d: None, "no bwlat_<readpct>.txt files"),
        (lambda d: (d / "bwlat_150.txt").write_text("0 140\n10 150\n"), "read percentage above 100"),
        (lambda d: (d / "bwlat_100.txt").write_text("0 140\nfast slow\n"), "malformed line"),
    ],
)
def test_mess_directory_checked(tmp_path, setup, needle):
    d = tmp_path / "mess"
    d.mkdir()
    setup(d)
    with pytest.raises(ConfigError, match=needle):
        profile.resolve(model_profile(tmp_path, str(d)), FACTS)


@pytest.mark.parametrize(
    "variant, extra, needle",
    [
        ("param:L0=abc,a=20,k=3,bsat=40000", "", "alternate_variants/192: parametric curve .*bad value for L0"),
        ("param:L0=192,a=20,k=3", "", "needs L0>0, a>=0, k>0, bsat>0"),
        ("param:L0=50,a=20,k=3,bsat=40000", "", "alternate_variants/192: unloaded_latency_ns 192 contradicts its curve, "
                                                "whose unloaded latency at reads only is 50 ns"),
        # tools and storage are used on this machine, model tiers or not
        (None, "tools: {mlc: /nonexistent/mlc}\n", "tools/mlc: '/nonexistent/mlc' is not an executable file"),
        (None, "storage: {directory: /nonexistent/dir}\n", "storage/directory: '/nonexistent/dir' is not an existing directory"),
        (None, "storage: {device: /dev/nonexistent}\n", "storage/device: '/dev/nonexistent' is not a block device"),
    ],
)
def test_model_profile_variants_tools_and_storage_checked(tmp_path, variant, extra, needle):
    alt = profile.REPO / "hosts/curves/paper-alternate-135.csv"
    with pytest.raises(ConfigError, match=needle):
        profile.resolve(model_profile(tmp_path, str(alt), variant=variant, extra=extra), FACTS)


def test_storage_needs_fio_before_any_job():
    facts = dict(FACTS, tools={"fio": None})
    h = plan.Host(profile.resolve("auto", facts), facts)
    with pytest.raises(ConfigError, match=r"storage family needs fio, which is not on PATH.*storage/enabled: false"):
        plan.build(profile.validate_config({"scale": "t"}), h)
    pl = plan.build(profile.validate_config({"scale": "t", "storage": {"enabled": False},
                                             "tiering": {"real": {"enabled": False}}}), h)
    assert pl.rows("storage") == []


def test_real_working_set_must_fit_its_start_node():
    h = plan.Host(profile.resolve("auto", FACTS), FACTS)
    with pytest.raises(ConfigError, match=r"tiering/real/working_set: 72G does not fit node 1 \(8192 MiB\)"):
        plan.build(config(), h)
