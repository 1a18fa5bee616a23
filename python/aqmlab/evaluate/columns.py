"""The columns of ``aqmlab evaluate``'s tables (``metrics.parquet``, ``flows.parquet``):
the contract of its output, read by the code that writes the tables and by the report.
"""

from __future__ import annotations

__all__ = ["KEY_COLUMNS", "METRIC_COLUMNS", "FLOW_KEY_COLUMNS", "TCP_COLUMN"]

#: The columns that identify a row of metrics.parquet, then the metrics every row has
#: (NaN where a scenario has no such quantity); class columns (``goodput_bps_<class>``,
#: ``class_loss_rate_<class>``) follow, then ``wall_time``.
KEY_COLUMNS = ("scenario", "section", "variant", "ecn", "aqm", "type", "seed")
METRIC_COLUMNS = (
    "goodput_bps",
    "utilization",
    "delay_mean",
    "delay_p50",
    "delay_p95",
    "delay_p99",
    "loss_rate",
    "mark_rate",
    "loss_interval_mean",
    "loss_interval_cv",
    "loss_sync",
    "jain",
    "fct_mean",
    "fct_p95",
    "startup_mean",
    "goodput_ratio",
)
#: The key columns of flows.parquet (the runner's per-flow fields follow).
FLOW_KEY_COLUMNS = ("scenario", "variant", "ecn", "aqm", "seed")
#: With ``--tcp``: the TCP variant every TCP flow of the run sent with, a key column
#: after the others (metrics.parquet: after ``KEY_COLUMNS``; flows.parquet: after
#: ``FLOW_KEY_COLUMNS``). Without ``--tcp`` the tables have no such column.
TCP_COLUMN = "tcp"
