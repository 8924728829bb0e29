"""`peggle rate` on a Ray cluster: levels split into shards, each rated by a Ray task into its own
database, merged into one with `peggle db merge` as they arrive (docs/distributed.md).

    from peggle_gym.ray import rate
    result = rate(["corpora/rating-1000"], "ratings.sqlite", ["--budget", "96"], address="auto")

or from a shell: ``python -m peggle_gym.ray rate LEVELS... --db FILE --address auto [peggle rate options]``.
Needs the optional extra: ``pip install -e "python[ray]"``.
"""
from ._rating import DEFAULT_LEVELS_PER_SHARD, RateResult, ShardFailed, ShardInterrupted, level_files, rate

__all__ = ["rate", "RateResult", "ShardFailed", "ShardInterrupted", "level_files", "DEFAULT_LEVELS_PER_SHARD"]
