"""workflows/harness/bootstrap.py: which of pip's settings reach uv, and when pip is kept."""

import marshal
import os
import re
import shutil
import subprocess
import sys

import pytest

from workflows.harness import bootstrap
from workflows.harness.bootstrap import uv_env

# `pip config list` as this machine prints it (a CA bundle, a wheel directory, two plain settings)
PIP_CONFIG = """global.cert='/etc/ssl/certs/ca-certificates.crt'
:env:.cert='/etc/ssl/certs/ca-certificates.crt'
:env:.default-timeout='180'
:env:.disable-pip-version-check='1'
:env:.find-links='/opt/wheels /srv/more-wheels'
"""


def test_pip_sources_reach_uv():
    env = uv_env(PIP_CONFIG + "global.index-url='https://mirror.example/simple'\n", {"PATH": "/bin"})
    assert env is not None
    assert env["UV_FIND_LINKS"] == "/opt/wheels,/srv/more-wheels"  # pip: whitespace; uv: commas
    assert env["UV_INDEX_URL"] == "https://mirror.example/simple"
    assert env["SSL_CERT_FILE"] == "/etc/ssl/certs/ca-certificates.crt"
    assert env["PATH"] == "/bin"
    assert "UV_EXTRA_INDEX_URL" not in env


def test_the_users_own_uv_settings_win():
    env = uv_env(PIP_CONFIG, {"UV_FIND_LINKS": "/mine", "SSL_CERT_FILE": "/my.pem"})
    assert env == {"UV_FIND_LINKS": "/mine", "SSL_CERT_FILE": "/my.pem"}


def test_an_empty_pip_config_changes_nothing():
    assert uv_env("", {"HOME": "/root"}) == {"HOME": "/root"}


def test_settings_uv_cannot_follow_keep_pip():
    for line in ("global.no-index='true'", ":env:.trusted-host='pypi.internal'", "global.proxy='http://p:3128'"):
        assert uv_env(PIP_CONFIG + line + "\n", {}) is None, line


class _Runs:
    """subprocess.run for bootstrap: each call's argv recorded; `pip config list` prints ``config``;
    a call whose argv contains ``fail`` returns status 1."""

    def __init__(self, config: str = "", fail: str = "\0"):
        self.calls: list[list[str]] = []
        self.config, self.fail = config, fail

    def __call__(self, argv, **kw):
        self.calls.append(list(argv))
        out = self.config if argv[-2:] == ["config", "list"] else ""
        if "-c" in argv and "sysconfig" in argv[-1]:  # the venv's package directories (purelib, platlib)
            out = "3.11.7 (main)\n/v/lib/python3.11/site-packages\n/v/lib/python3.11/site-packages\n"
        return subprocess.CompletedProcess(argv, 1 if self.fail in argv else 0, stdout=out, stderr="")


@pytest.fixture(autouse=True)
def _no_kept_uv(monkeypatch, tmp_path):
    """No test keeps a uv in the user's own cache, nor finds one there."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_uv_installs_then_fills_the_venv(monkeypatch):
    runs = _Runs(PIP_CONFIG)
    monkeypatch.setattr(bootstrap, "kept_uv", lambda: None)
    monkeypatch.setattr(bootstrap.subprocess, "run", runs)
    assert bootstrap._install_with_uv("/v/bin/python")
    assert runs.calls[1] == ["/v/bin/python", "-m", "pip", "install", "-q", bootstrap.UV]
    assert runs.calls[2][:4] == ["/v/bin/python", "-m", "uv", "pip"]
    # then the bytecode (PYTHONDONTWRITEBYTECODE would leave the packages uncompiled), of every
    # installed file but the packages' own tests
    comp = [c for c in runs.calls if c[1:3] == ["-m", "compileall"]]
    assert len(comp) == 1 and "-x" in comp[0] and comp[0][-1] == "/v/lib/python3.11/site-packages", runs.calls
    unused = re.compile(comp[0][comp[0].index("-x") + 1])
    assert unused.search("/v/lib/python3.11/site-packages/pandas/tests/frame/test_api.py")
    assert not unused.search("/v/lib/python3.11/site-packages/numpy/testing/_private/utils.py")
    assert not unused.search("/v/lib/python3.11/site-packages/snakemake/dag.py")


class _NoVenvPip(_Runs):
    """A venv made without pip: its interpreter's `-m pip` fails until `-m ensurepip` ran."""

    def __call__(self, argv, **kw):
        r = super().__call__(argv, **kw)
        if argv[0] == "/v/bin/python" and argv[1:3] == ["-m", "pip"] and ["-m", "ensurepip"] not in \
                [c[1:3] for c in self.calls]:
            r.returncode = 1
        return r


def test_a_kept_uv_fills_a_venv_without_pip(monkeypatch, tmp_path):
    """A later clone: its venv has no pip, so pip's settings are asked of the pip bootstrap runs
    under, and the kept uv installs: no pip and no uv wheel is put into the venv. Where that pip would
    read a site file of its own, pip is put into the venv to ask it."""
    monkeypatch.setattr(bootstrap, "kept_uv", lambda: "/cache/uv")
    for site_conf, ensurepip in ((False, False), (True, True)):
        prefix = tmp_path / f"prefix-{site_conf}"
        prefix.mkdir()
        if site_conf:
            (prefix / "pip.conf").write_text("[global]\nindex-url = https://site.example/simple\n")
        monkeypatch.setattr(bootstrap.sys, "prefix", str(prefix))
        runs = _NoVenvPip(PIP_CONFIG)
        monkeypatch.setattr(bootstrap.subprocess, "run", runs)
        assert bootstrap._install_with_uv("/v/bin/python")
        asked = [c[0] for c in runs.calls if c[-2:] == ["config", "list"]]
        assert asked == (["/v/bin/python", "/v/bin/python"] if ensurepip else ["/v/bin/python", sys.executable])
        assert any("ensurepip" in c for c in runs.calls) == ensurepip, runs.calls
        uv = [c for c in runs.calls if c[0] == "/cache/uv"]
        assert len(uv) == 1 and uv[0][1:4] == ["pip", "install", "-q"] and uv[0][-1] == "--offline"
        assert not any(bootstrap.UV in c for c in runs.calls), runs.calls


def test_the_uv_kept_is_the_pinned_one(tmp_path):
    home = bootstrap.uv_home()
    assert home.parent == tmp_path / "cache/tierbench" and home.name == bootstrap.UV.replace("==", "-")
    assert bootstrap.kept_uv() is None  # none kept yet
    venv_bin = tmp_path / "v/bin"
    venv_bin.mkdir(parents=True)
    for version, kept in (("0.13.8", False), (bootstrap.UV.split("==")[1], True)):
        (venv_bin / "uv").write_text(f"#!/bin/sh\necho 'uv {version} (x86_64-unknown-linux-gnu)'\n")
        (venv_bin / "uv").chmod(0o755)
        bootstrap.keep_uv(str(venv_bin / "python"))
        assert (home / "uv").read_text() == (venv_bin / "uv").read_text()
        assert bootstrap.kept_uv() == (str(home / "uv") if kept else None), version
    assert [p.name for p in home.iterdir()] == ["uv"]  # no copy left half-way


def test_bytecode_kept_for_the_next_clone(tmp_path, monkeypatch):
    """The first clone's setup compiles and keeps the bytecode; the next clone's (another
    directory, the same sources) unpacks it, and compileall recompiles only a source that no longer
    matches its .pyc (here: one edited since)."""
    site = tmp_path / "clone1/lib/python/site-packages"
    (site / "pkg").mkdir(parents=True)
    for name in ("a", "b"):
        (site / "pkg" / f"{name}.py").write_text(f"X = {name!r}\n")
    (site / "pkg/tests").mkdir()
    (site / "pkg/tests/test_a.py").write_text("Y = 1\n")

    def pyc(site, name):
        return site / "pkg/__pycache__" / f"{name}.{sys.implementation.cache_tag}.pyc"

    real_run, jobs = subprocess.run, []

    def run(argv, **kw):
        if "compileall" in argv:
            jobs.append(argv[argv.index("-j") + 1])
        return real_run(argv, **kw)

    monkeypatch.setattr(bootstrap.subprocess, "run", run)
    other = bootstrap.kept_home() / "bytecode-py3.y-0123456789abcdef-0.tar"  # another Python's
    other.parent.mkdir(parents=True)
    other.write_bytes(b"")
    mine = bootstrap.kept_home() / "bytecode-py3.x-0123456789abcdef-0.tar"  # older requirements'
    mine.write_bytes(b"")
    bootstrap.compile_dirs(sys.executable, "3.x (main)", [str(site)])
    assert other.exists() and not mine.exists()
    kept = sorted(set(bootstrap.kept_home().glob("bytecode-*.tar")) - {other})
    assert len(kept) == 1 and pyc(site, "a").is_file() and pyc(site, "b").is_file()
    assert not (site / "pkg/tests/__pycache__").exists()  # the packages' own tests are not compiled

    # the next clone: the same source files (as uv links them: the same mtimes), no bytecode
    site2 = tmp_path / "clone2/lib/python/site-packages"
    shutil.copytree(site, site2, ignore=shutil.ignore_patterns("__pycache__"))
    (site2 / "pkg/a.py").write_text("X = 'edited'\n")
    st = (site2 / "pkg/a.py").stat()
    os.utime(site2 / "pkg/a.py", (st.st_atime, st.st_mtime + 10))  # edited later than compiled
    bootstrap.compile_dirs(sys.executable, "3.x (main)", [str(site2)])
    assert pyc(site2, "b").read_bytes() == pyc(site, "b").read_bytes()
    ns = {}
    exec(marshal.loads(pyc(site2, "a").read_bytes()[16:]), ns)  # recompiled from the edited source
    assert ns["X"] == "edited"
    assert sorted(set(bootstrap.kept_home().glob("bytecode-*.tar")) - {other}) == kept
    assert jobs == ["0", "1"]  # compiled in parallel, then only checked what was unpacked


def test_pip_takes_over_where_uv_fails_or_cannot_follow(monkeypatch, capsys):
    monkeypatch.setattr(bootstrap, "kept_uv", lambda: None)
    runs = _Runs(PIP_CONFIG, fail=bootstrap.UV)  # uv's wheel cannot be had
    monkeypatch.setattr(bootstrap.subprocess, "run", runs)
    assert not bootstrap._install_with_uv("/v/bin/python")
    assert len(runs.calls) == 2 and "installing with pip instead" in capsys.readouterr().out

    runs = _Runs(PIP_CONFIG + "global.no-index='true'\n")  # pip set up in a way uv does not follow
    monkeypatch.setattr(bootstrap.subprocess, "run", runs)
    assert not bootstrap._install_with_uv("/v/bin/python")
    assert len(runs.calls) == 1 and "installing with pip" in capsys.readouterr().out


def test_the_installer_chosen(monkeypatch):
    """TIERBENCH_INSTALLER=pip: pip only, uv never tried; otherwise uv, and pip only where uv fails."""
    def pip_r(calls):
        return [c for c in calls if c[1:4] == ["-m", "pip", "install"] and "-r" in c]

    for forced, fail, uv_tried, pip_used in (("pip", "\0", False, True), ("", "\0", True, False),
                                             ("", bootstrap.UV, True, True)):
        runs = _Runs(PIP_CONFIG, fail=fail)
        monkeypatch.setattr(bootstrap, "kept_uv", lambda: None)
        monkeypatch.setattr(bootstrap.subprocess, "run", runs)
        monkeypatch.setenv("TIERBENCH_INSTALLER", forced)
        bootstrap.install_requirements("/v/bin/python")
        assert any(bootstrap.UV in c for c in runs.calls) == uv_tried, (forced, fail, runs.calls)
        assert bool(pip_r(runs.calls)) == pip_used, (forced, fail, runs.calls)


def test_parts_run_apart(monkeypatch, tmp_path):
    """`make build` runs --system, then --python beside the C builds: each part only its own steps."""
    calls = []
    monkeypatch.setattr(bootstrap, "system_packages", lambda: calls.append("system"))
    monkeypatch.setattr(bootstrap, "tool_packages", lambda: calls.append("tools"))
    monkeypatch.setattr(bootstrap, "python_env", lambda: calls.append("python") or "/venv/bin/python")
    monkeypatch.setattr(bootstrap, "REPO", tmp_path)
    for argv, want in ((["--system"], ["system", "tools"]), (["--python"], ["python"]),
                       ([], ["system", "tools", "python"])):
        calls.clear()
        monkeypatch.setattr(bootstrap.sys, "argv", ["bootstrap", *argv])
        assert bootstrap.main() == 0 and calls == want, argv
    assert (tmp_path / "build/python").read_text() == "/venv/bin/python\n"


def test_an_unknown_part_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(bootstrap.sys, "argv", ["bootstrap", "--sytem"])
    monkeypatch.setattr(bootstrap, "system_packages", lambda: (_ for _ in ()).throw(AssertionError("ran")))
    try:
        bootstrap.main()
    except SystemExit as e:
        assert "--sytem" in str(e.code) and "--system" in str(e.code)
    else:
        raise AssertionError("an unknown argument was accepted")
