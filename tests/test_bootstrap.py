"""workflows/harness/bootstrap.py: which of pip's settings reach uv, and when pip is kept."""

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
