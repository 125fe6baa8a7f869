"""tierbench analysis: raw outputs -> long-form tables -> figures, tables, scorecard.

Never imports snakemake; every function takes and returns plain data so it can
be tested on synthetic frames.
"""
