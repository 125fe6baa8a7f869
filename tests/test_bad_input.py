"""Bad input at the user-facing entry points: one clear line naming the problem, a non-zero exit,
nothing written (the project's rule; each case here was a traceback, a silent exit 0 or a late
failure before it was mended)."""

from __future__ import annotations

import json
import os
import re

import pytest
from conftest import REPO
from test_curves import MLC
from test_profiles import FACTS

from workflows.harness import cli
from workflows.harness import fidelity as hfidelity

QUICK = REPO / "workflows" / "config" / "quick.yaml"


def _errors(capsys) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def test_a_profile_that_is_not_text_is_named(tmp_path, capsys):
    bad = tmp_path / "b.yaml"
    bad.write_bytes(b"\xff\xfe x\n")
    assert cli.main(["validate", "--host", str(bad)]) == 1
    assert _errors(capsys) == [f"tierbench: error: host profile {bad}: not UTF-8 text (byte 0: b'\\xff')"]


@pytest.mark.parametrize("facts, needle", [
    ({}, "no hostname, nodes, online_cpus, memory_nodes, cpu_nodes"),
    ([1], "a JSON list, not an object"),
    ({**FACTS, "nodes": {"0": {"cpus": [0]}}}, "nodes/0: not a node with cpus (a list) and memory_mib (a number)"),
])
def test_validate_facts_of_the_wrong_shape_are_refused_in_one_line(tmp_path, capsys, facts, needle):
    f = tmp_path / "facts.json"
    f.write_text(json.dumps(facts))
    assert cli.main(["validate", "--host", "hosts/icelake-2s.yaml", "--facts", str(f)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith(f"tierbench: error: --facts {f}: not a facts file (") and needle in err[0]


def test_plan_says_a_config_error_once(tmp_path, capsys):
    cfg = tmp_path / "q.yaml"
    cfg.write_text(QUICK.read_text().replace("  duration_s: 100 ", "  duration_s: -5 ", 1))
    assert "duration_s: -5" in cfg.read_text()
    assert cli.main(["plan", "--no-probe", "--configfile", str(cfg)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and "duration_s: -5 is less than or equal to the minimum of 0" in err[0]


def test_a_fleet_config_is_checked_host_by_host(tmp_path, capsys):
    cfg = tmp_path / "fleet.yaml"
    cfg.write_text(QUICK.read_text() + "hosts: [paper-testbed, nosuchhost]\n")
    for cmd in ("validate", "plan", "name", "points"):
        assert cli.main([cmd, "--configfile", str(cfg)] + (["--no-probe"] if cmd == "plan" else [])) == 1
        assert _errors(capsys) == ["tierbench: error: host profile 'nosuchhost' not found (known profiles: auto, "
                                   "cxl-cpuless, cxl-model, icelake-2s, paper-testbed, qemu-2s, qemu-numa; or give a "
                                   "path to a .yaml file)"]
    cfg.write_text(QUICK.read_text() + "hosts: [paper-testbed, cxl-model]\n")
    assert cli.main(["name", "--configfile", str(cfg)]) == 0
    assert capsys.readouterr().out.splitlines() == ["paper-testbed", "cxl-model"]
    assert cli.main(["validate", "--configfile", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "== host paper-testbed" in out and "== host cxl-model" in out
    assert "ok: host profile hosts/paper-testbed.yaml" in out and "ok: host profile hosts/cxl-model.yaml" in out


def test_points_of_an_unknown_family_are_refused(capsys):
    assert cli.main(["points", "--host", "paper-testbed", "--family", "nosuch"]) == 1
    assert _errors(capsys) == ["tierbench: error: --family 'nosuch': no such family (families: characterize, "
                               "storage, tiering, apps, overcommit, kv)"]


@pytest.mark.parametrize("change, needle", [
    (("    hot_set: 128M", "    hot_set: 4G"), "tiering/contention/hot_set: 4G is not smaller than the working set (512M)"),
    (("    hot_set: 128M", "    hot_set: 512M"), "tiering/contention/hot_set: 512M is not smaller than the working set"),
    (("    working_set: 512M", "    working_set: 100000G"), "tiering/contention/working_set: 100000G does not fit node"),
])
def test_gups_sizes_that_gups_would_refuse_are_refused_before_any_job(tmp_path, capsys, change, needle):
    cfg = tmp_path / "q.yaml"
    text = QUICK.read_text()
    assert change[0] in text
    cfg.write_text(text.replace(change[0], change[1], 1))
    assert cli.main(["validate", "--host", "auto", "--configfile", str(cfg)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and needle in err[0]


def test_curve_out_where_it_cannot_be_written_is_one_line(tmp_path, capsys):
    out = tmp_path / "no" / "such" / "dir" / "c.csv"
    assert cli.main(["curve", str(REPO / "hosts/curves/paper-default.csv"), "--out", str(out)]) == 1
    assert _errors(capsys) == [f"tierbench: error: --out {out}: cannot write: No such file or directory"]
    assert not list(tmp_path.rglob("*.tmp"))


@pytest.mark.parametrize("rr", ["5", "-0.5", "nan"])
def test_curve_read_ratio_outside_zero_to_one_is_refused(tmp_path, capsys, rr):
    src = tmp_path / "mlc.txt"
    src.write_text(MLC.replace("Using Read-only traffic type\n", ""))
    out = tmp_path / "c.csv"
    assert cli.main(["curve", str(src), "--read-ratio", rr, "--out", str(out)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and "is not between 0 and 1" in err[0] and not out.exists()


def _guest():
    """hosts/qemu/guest.py, as the workflow loads it (runner.launcher, the guest profile's launcher)."""
    from workflows.harness import profile, runner  # noqa: PLC0415

    return runner.launcher(profile.runner_of("qemu-numa"))


def test_guest_run_refuses_memory_timeout_and_out_it_cannot_use(tmp_path, capsys, monkeypatch):
    import signal  # noqa: PLC0415

    guest = _guest()
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    out = tmp_path / "o"
    assert guest.main(["run", "--mem-mib", "99999999,99999999", "--accel", "tcg", "--quiet", "--out", str(out)]) == 2
    assert "is more than this host's memory" in capsys.readouterr().err and not out.exists()
    assert guest.main(["run", "--timeout", "nan", "--accel", "tcg", "--quiet", "--out", str(out)]) == 2
    assert "--timeout must be a positive number of seconds" in capsys.readouterr().err and not out.exists()
    afile = tmp_path / "afile"
    afile.write_text("")
    monkeypatch.setattr(guest, "_built", lambda: True)  # (the checks below come before anything a boot needs)
    monkeypatch.setattr(guest, "QEMU", "true")
    script = tmp_path / "s.sh"
    script.write_text("true\n")
    assert guest.main(["run", "--script", str(script), "--out", str(afile), "--accel", "tcg", "--quiet"]) == 1
    assert f"--out {afile}: cannot make the directory" in capsys.readouterr().err
    assert guest.main(["run", "--script", str(tmp_path), "--out", str(out), "--accel", "tcg", "--quiet"]) == 1
    assert f"script {tmp_path} is not a file" in capsys.readouterr().err and not out.exists()
    # main() is called in-process here: it puts its stop-signal handlers back (a SIGTERM handler it
    # left behind was copied into a later test's forked pool, and make test hung)
    assert {sig: signal.getsignal(sig) for sig in before} == before


@pytest.mark.parametrize("facts, needle", [
    ("{bad", "not a host facts file (Expecting property name"),
    ("[]", "not a host facts file (a JSON list, not an object)"),
])
def test_fidelity_of_a_directory_with_bad_facts_is_one_line(tmp_path, capsys, facts, needle):
    (tmp_path / "host_facts.json").write_text(facts)
    assert hfidelity.main(["--host-dir", str(tmp_path)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and needle in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["host_facts.json"]


def test_fidelity_of_a_missing_input_file_is_one_line(tmp_path, capsys):
    (tmp_path / "host_facts.json").write_text(json.dumps({**FACTS, "profile": {"name": "h", "backend": "numa"}}))
    missing = tmp_path / "nonexistent.csv"
    assert hfidelity.main(["--host-dir", str(tmp_path), str(missing)]) == 1
    assert _errors(capsys) == [f"tierbench: error: {missing}: no such file"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["host_facts.json"]


def test_analysis_fidelity_of_a_directory_is_one_line(tmp_path, capsys):
    from analysis import fidelity as afidelity  # noqa: PLC0415

    rc = afidelity.main(["--host", "x", "--fidelity", str(tmp_path), "--md", str(tmp_path / "m.md"),
                         "--figure", str(tmp_path / "f")])
    assert rc != 0 and "cannot read: Is a directory" in capsys.readouterr().err
    assert not (tmp_path / "m.md").exists()


def test_a_value_repeated_in_a_list_is_named_not_a_traceback(tmp_path, capsys):
    cfg = tmp_path / "dup.yaml"
    cfg.write_text("tiering: {systems: [hemem, hemem]}\n")
    assert cli.main(["points", "--host", "paper-testbed", "--configfile", str(cfg)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith("tierbench: error: experiment config: tiering: point tiering/"), err
    assert "planned twice: does one of the tiering block's lists repeat a value?" in err[0]


def test_a_configfile_is_merged_over_quick_yaml_as_the_workflow_merges_it(tmp_path, capsys):
    # quick.yaml turns kv on (the schema's default is off): a config naming only kv's placements
    # is checked with kv on, as `snakemake --configfile` runs it, not with the schema's defaults
    cfg = tmp_path / "kv.yaml"
    cfg.write_text("kv: {placements: [nosuchtier]}\n")
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", "kv"]) == 1
    assert "kv/placements: 'nosuchtier' names no tier" in _errors(capsys)[0]
    # and the paper config keeps quick.yaml's model_batch where it sets none
    args = type("A", (), {"configfile": "workflows/config/paper.yaml", "host": None})()
    assert cli._config(args)["model_batch"] == 16 and args.config_name == "workflows/config/paper.yaml"


def test_without_a_configfile_a_guest_host_plans_its_own_config():
    args = type("A", (), {"configfile": None, "host": "qemu-numa"})()
    qemu = cli.profile.load_yaml(REPO / "workflows/config/qemu.yaml", "experiment config")
    assert cli._config(args) == qemu and args.config_name == "workflows/config/qemu.yaml"
    args = type("A", (), {"configfile": None, "host": "paper-testbed"})()
    assert cli._config(args) == cli.profile.load_yaml(QUICK, "experiment config")


def test_a_config_that_plans_nothing_stops_plan_before_it_writes(tmp_path, capsys):
    cfg = tmp_path / "off.yaml"
    cfg.write_text("".join(f"{f}: {{enabled: false}}\n"
                           for f in ("characterize", "storage", "tiering", "apps", "overcommit", "kv")))
    save = tmp_path / "est" / "e.json"
    assert cli.main(["plan", "--no-probe", "--host", "paper-testbed", "--configfile", str(cfg),
                     "--save", str(save)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith("tierbench: error: nothing to run on paper-testbed: off in the "
                                               "config (characterize, storage, tiering, apps, overcommit, kv"), err
    assert not save.parent.exists()


def test_plan_save_to_an_unwritable_place_is_named(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cfg = tmp_path / "tiering.yaml"
    cfg.write_text("".join(f"{f}: {{enabled: false}}\n" for f in ("characterize", "storage", "apps", "overcommit", "kv")))
    assert cli.main(["plan", "--no-probe", "--host", "paper-testbed", "--configfile", str(cfg),
                     "--save", str(blocker / "e.json")]) == 1
    err = _errors(capsys)
    assert err[-1].startswith(f"tierbench: error: --save {blocker / 'e.json'}: cannot write it: "), err


def test_a_measured_averaging_window_longer_than_its_run_is_refused(tmp_path, capsys):
    cfg = tmp_path / "short.yaml"
    cfg.write_text("tiering: {contention: {duration_s: 2}}\n")  # quick.yaml averages its last 3 s
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", "tiering"]) == 1
    assert _errors(capsys) == ["tierbench: error: experiment config: tiering/contention/average_last_s: 3 s is "
                               "longer than the run (duration_s: 2 s)"]
    from systems import sweep  # noqa: PLC0415 - (the real runs' check, on a two-tier host only)

    with pytest.raises(cli.ConfigError, match=r"tiering/real/average_last_s: 50 s is longer than the run \(duration_s: 10 s\)"):
        sweep.check_window(50, 10, "experiment config: tiering/real", "duration_s")
    sweep.check_window(10, 10, "experiment config: tiering/real", "duration_s")


@pytest.mark.parametrize("name", ["fleet", "README.md"])
def test_a_profile_named_like_what_results_holds_is_refused(tmp_path, capsys, name):
    prof = tmp_path / "p.yaml"
    prof.write_text((REPO / "hosts/paper-testbed.yaml").read_text().replace("name: paper-testbed", f"name: {name}", 1)
                    .replace("curves/", f"{REPO}/hosts/curves/"))
    assert cli.main(["validate", "--host", str(prof)]) == 1
    assert _errors(capsys) == [f"tierbench: error: host profile {prof}: name: {name!r} is taken by results/{name} "
                               f"({cli.profile.RESERVED_NAMES[name]}): give the profile another name"]


@pytest.mark.parametrize("name, needle", [
    ("auto", "'auto' is not a profile of model tiers (its tiers: "),
    ("nosuch", "'nosuch': host profile 'nosuch' not found"),
])
def test_a_model_profile_that_is_not_one_names_the_config_key(tmp_path, capsys, name, needle):
    cfg = tmp_path / "m.yaml"
    cfg.write_text(f"tiering: {{model_profile: {name}}}\n")
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", "tiering"]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith("tierbench: error: experiment config: tiering/model_profile: ") \
        and needle in err[0], err


@pytest.mark.parametrize("block", ["latency", "loaded", "thread_share"])
def test_a_buffer_larger_than_its_node_is_refused(tmp_path, capsys, block):
    cfg = tmp_path / "big.yaml"
    cfg.write_text(f"characterize: {{{block}: {{buffer_mib: 10000000}}}}\n")  # 9.5 TiB
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", "characterize"]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith(f"tierbench: error: experiment config: characterize/{block}/buffer_mib: "
                                               "10000000 MiB is more than node "), err


def _dax_profile(tmp_path, path) -> str:
    prof = tmp_path / "dax.yaml"
    prof.write_text(f"name: daxy\ntiers:\n  - {{name: default, kind: numa, node: 0}}\n"
                    f"  - {{name: pmem, kind: dax, path: {path}}}\n")
    return str(prof)


def test_a_dax_path_whose_files_are_not_dax_is_refused(tmp_path, capsys, monkeypatch):
    """A directory (or file) whose files are in the page cache is no PMem tier: refused before any
    job, with the filesystem named; the check's probe file is not left behind. Where the kernel says
    a file is DAX, or says nothing and the mount has the dax option, it is accepted."""
    import platform  # noqa: PLC0415

    from workflows.harness import memcg, profile  # noqa: PLC0415

    d = tmp_path / "pmem"
    d.mkdir()
    if tuple(int(x) for x in platform.release().split(".")[:2]) >= (5, 11):
        assert profile.statx_dax(d) is False  # this kernel reports a DAX state, and this is none
    prof = _dax_profile(tmp_path, d)
    assert cli.main(["validate", "--host", prof]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith(f"tierbench: error: host profile {prof}: tiers/1 (pmem): DAX path "
                                               f"'{d}' is not DAX: a file made in it is in the page cache ("), err
    assert "dax=always" in err[0] and list(d.iterdir()) == [], err
    for state, opts, ok in ((True, "rw", True), (None, "rw,dax=always", True), (None, "rw,dax", True),
                            (None, "rw", False), (False, "rw,dax=inode", False)):
        profile._not_dax_file.cache_clear()
        monkeypatch.setattr(profile, "statx_dax", lambda p, state=state: state)
        monkeypatch.setattr(memcg, "mount_of", lambda p, opts=opts: (str(tmp_path), "xfs", opts))
        assert (profile._not_dax(d) is None) == ok, (state, opts)
    profile._not_dax_file.cache_clear()


def test_a_dax_path_that_is_no_dax_device_is_refused(tmp_path, capsys):
    prof = _dax_profile(tmp_path, "/dev/null")
    assert cli.main(["validate", "--host", prof]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith(f"tierbench: error: host profile {prof}: tiers/1 (pmem): DAX path "
                                               "'/dev/null' is a character device but not a device DAX instance (its "
                                               "/sys/dev/char/1:3/subsystem is "), err
    # a device DAX instance on the dax bus, or (dax_pmem_compat, Linux 5.1-5.15) in the dax class, is one
    from workflows.harness import profile  # noqa: PLC0415

    for sub in ("bus", "class"):
        fake = tmp_path / "sys" / sub / "dax"
        fake.mkdir(parents=True)
        link = tmp_path / "dev-char" / "1:3"
        link.mkdir(parents=True, exist_ok=True)
        (link / "subsystem").unlink(missing_ok=True)
        (link / "subsystem").symlink_to(fake)
        old = profile.SYS_DEV_CHAR
        profile.SYS_DEV_CHAR = tmp_path / "dev-char"
        try:
            assert profile._not_dax(profile.Path("/dev/null")) is None
        finally:
            profile.SYS_DEV_CHAR = old


def test_a_dax_directory_is_left_out_of_characterize_with_its_reason(tmp_path, capsys, monkeypatch):
    # (kv's pmdk puts its pool files in it; memchar opens the path itself, which fails on a directory)
    from workflows.harness import profile  # noqa: PLC0415

    monkeypatch.setattr(profile, "statx_dax", lambda p: True)  # its files are DAX
    profile._not_dax_file.cache_clear()
    assert cli.main(["points", "--host", _dax_profile(tmp_path, tmp_path), "--family", "characterize"]) == 0
    assert "dax:" not in capsys.readouterr().out
    assert cli.main(["validate", "--host", _dax_profile(tmp_path, tmp_path)]) == 0
    assert f"left out: characterize:dax-pmem: tier pmem's DAX path {tmp_path} is a directory" in capsys.readouterr().out


def test_a_fio_file_larger_than_the_free_disk_is_refused(tmp_path, capsys):
    cfg = tmp_path / "big.yaml"
    cfg.write_text("storage: {file_size_mib: 1000000000}\n")  # 954 TiB
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", "storage"]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and err[0].startswith("tierbench: error: experiment config: storage/file_size_mib: fio's "
                                               "1000000000 MiB data file does not fit in "), err


@pytest.mark.parametrize("kv, says", [
    ("{records: 100000000000}", r"kv/records: 100000100000 records of string keys and 100 B values are \d+ MiB of "
                                r"payload, more than the memory of placement \w+ \(node\(s\) \d+: \d+ MiB\)"),
    ("{records: 10000000, heap_mib: 64, systems: [skiplist]}",
     r"kv/heap_mib: the skiplist store keeps its records on the JVM heap: 10100000 records of string keys and 100 B "
     r"values are 1185 MiB of payload, more than its 64 MiB"),
])
def test_kv_records_that_cannot_fit_are_refused(tmp_path, capsys, kv, says):
    """(past it a point fails half-way through the run, or the OOM killer ends the store)"""
    cfg = tmp_path / "kv.yaml"
    cfg.write_text(f"kv: {kv}\n")
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", "kv"]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and re.match("tierbench: error: experiment config: " + says, err[0]), err
    cfg.write_text("kv: {records: 10000000, heap_mib: 64, systems: [redis]}\n")  # no skip list: its heap is not asked
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", "kv"]) == 0


@pytest.mark.parametrize("family", ["tiering", "apps"])
def test_antagonist_buffers_larger_than_their_node_are_refused(tmp_path, capsys, family):
    cfg = tmp_path / "ant.yaml"
    cfg.write_text(f"{family}: {{contention: {{antagonist_buffer: 1000G}}}}\n")
    assert cli.main(["points", "--host", "auto", "--configfile", str(cfg), "--family", family]) == 1
    err = _errors(capsys)
    # (the first level with an antagonist has as many threads as this machine's CPUs give it)
    assert len(err) == 1 and re.match(f"tierbench: error: experiment config: {family}/contention/antagonist_buffer: "
                                      r"\d+ antagonist threads? of 1000G each need \d+ MiB, more than node ", err[0]), err
    # the real runs' check (two-tier hosts): every thread's buffer counts
    from systems import sweep  # noqa: PLC0415

    host = type("H", (), {"facts": {"nodes": {"0": {"cpus": [0], "memory_mib": 4096}}}})()
    with pytest.raises(cli.ConfigError, match="tiering/real/antagonist_buffer: 5 antagonist threads of 1G each need "
                                              "5120 MiB, more than node 0's memory"):
        sweep.check_antagonist_room(host, 0, "1G", 5, "tiering/real/antagonist_buffer")
    sweep.check_antagonist_room(host, 0, "1G", 4, "tiering/real/antagonist_buffer")


def test_a_published_source_that_does_not_exist_is_named(tmp_path, capsys):
    prof = tmp_path / "p.yaml"
    text = (REPO / "hosts/paper-testbed.yaml").read_text().replace("curves/", f"{REPO}/hosts/curves/")
    prof.write_text(text.replace("comparable_to: [colloid-sosp24]", "comparable_to: [colloid-sosp42]", 1))
    assert cli.main(["validate", "--host", str(prof)]) == 1
    err = _errors(capsys)
    assert len(err) == 1 and "comparable_to: 'colloid-sosp42' is no source of analysis/reference/" in err[0], err
    prof.write_text(text.replace("  - figure: motivation\n", "  - figure: motivation\n    source: nope\n", 1))
    assert cli.main(["validate", "--host", str(prof)]) == 1
    assert "calibrated_on/0/source: 'nope' is no source of" in _errors(capsys)[0]


@pytest.mark.parametrize("tier, key", [
    ("{name: default, kind: numa, node: 0, curve: /nonexistent.csv}", "curve is for a model tier, and this one is numa"),
    ("{name: default, kind: numa, node: 0, capacity_gib: 5}", "capacity_gib is for a model tier, and this one is numa"),
])
def test_a_tier_key_of_another_kind_is_refused_not_ignored(tmp_path, capsys, tier, key):
    prof = tmp_path / "p.yaml"
    prof.write_text(f"name: nc\ntiers:\n  - {tier}\n")
    assert cli.main(["validate", "--host", str(prof)]) == 1
    assert _errors(capsys) == [f"tierbench: error: host profile {prof}: tiers/0 (default): {key}"]


def test_a_curve_file_of_two_words_is_not_taken_for_a_mess_file(tmp_path, capsys):
    bad = tmp_path / "c.csv"
    bad.write_text("hello world\n1,2,3\n")
    assert cli.main(["curve", str(bad)]) == 1
    assert _errors(capsys) == [f"tierbench: error: {bad}: header must be read_ratio,bandwidth_mbps,latency_ns"]
    bad.write_text("100 80\n200 90\n")  # two numbers: a Mess file given for its directory
    assert cli.main(["curve", str(bad)]) == 1
    assert "this is one Mess curve file" in _errors(capsys)[0]


@pytest.mark.parametrize("col, value, needle", [
    ("latency_ns", 1e12, "an unloaded latency of 1e+12 ns at read ratio 1 is more than 10 ms: not in ns?"),
    ("bandwidth_mbps", 2.7e13, "a bandwidth of 3.24e+14 MB/s at read ratio 1 is more than 10 TB/s: not in MB/s?"),
])
def test_a_curve_in_other_units_is_refused(tmp_path, capsys, col, value, needle):
    c = tmp_path / "c.csv"
    rows = [(1, 1000.0 * i, 100.0 + i) for i in range(1, 13)]
    rows = [(r, b * value / 1000 if col == "bandwidth_mbps" else b, value + lat if col == "latency_ns" else lat)
            for r, b, lat in rows]
    c.write_text("read_ratio,bandwidth_mbps,latency_ns\n" + "".join(f"{r},{b:g},{lat:g}\n" for r, b, lat in rows))
    assert cli.main(["curve", str(c)]) == 1
    assert needle in _errors(capsys)[-1]


def test_live_checks_are_for_this_machine_only(tmp_path, capsys):
    # another machine's facts (cli validate --facts), a projection, a guest: this disk is not theirs
    from workflows.harness import hostdetect  # noqa: PLC0415

    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({**hostdetect.detect(), "hostname": "elsewhere"}))
    cfg = tmp_path / "big.yaml"
    cfg.write_text("storage: {file_size_mib: 1000000000}\n")
    assert cli.main(["validate", "--host", "auto", "--facts", str(facts), "--configfile", str(cfg)]) == 0, _errors(capsys)
    assert cli.main(["validate", "--host", "auto", "--configfile", str(cfg)]) == 1
    assert "storage/file_size_mib: fio's 1000000000 MiB data file does not fit" in _errors(capsys)[-1]


def test_repair_puts_back_what_a_killed_run_left(tmp_path, monkeypatch, capsys):
    """make run repairs before planning, whose live checks (a swap area in use, DAMON running)
    would otherwise refuse what the killed run itself left."""
    from workflows.harness import hostdetect  # noqa: PLC0415

    monkeypatch.setattr(cli, "RESULTS", tmp_path / "results")
    results = tmp_path / "results" / hostdetect.safe_hostname()
    results.mkdir(parents=True)
    assert cli.main(["repair", "--host", "auto"]) == 0
    assert "repair: nothing to put back" in capsys.readouterr().out
    knob = tmp_path / "knob"
    knob.write_text("2")
    (results / ".settings-journal.json").write_text(json.dumps({str(knob): "1"}))
    if os.geteuid() != 0:
        assert cli.main(["repair", "--host", "auto"]) == 1
        assert "putting them back needs root" in _errors(capsys)[0]
        return
    assert cli.main(["repair", "--host", "auto"]) == 0
    assert f"repair: put back what a killed run left changed: {knob}" in capsys.readouterr().out
    assert knob.read_text() == "1" and not (results / ".settings-journal.json").exists()
