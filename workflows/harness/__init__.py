"""tierbench harness: host detection, profile/config validation, CPU and node
plans, process supervision, counter collectors and provenance.

No plotting here (see ``analysis``). Everything that can reject a run does so
by raising :class:`ConfigError` with one message naming the problem.
"""


class ConfigError(Exception):
    """A host profile, experiment config or environment problem found before any job runs."""


__all__ = ["ConfigError"]
