"""bundletui: Oozie bundles and coordinators, JobControl DAGs and CDAP event schedules on one SQLite file."""

__version__ = "0.1.0"
