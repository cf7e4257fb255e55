"""The schema, as an ordered list of migrations. Times are INTEGER epoch milliseconds (UTC).

Every mutable row carries ``rev``: the store-wide revision of the transaction that last wrote it,
so a poller fetches only rows with ``rev > last_seen`` (an index makes that O(changes)).
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the whole first schema
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE bundle_jobs (
        id TEXT PRIMARY KEY,
        app_name TEXT NOT NULL,
        app_path TEXT NOT NULL,
        external_id TEXT UNIQUE,
        user TEXT NOT NULL,
        grp TEXT,
        status TEXT NOT NULL,
        pending INTEGER NOT NULL DEFAULT 0,
        kickoff_time INTEGER,
        start_time INTEGER,
        end_time INTEGER,
        pause_time INTEGER,
        suspended_time INTEGER,
        created_time INTEGER NOT NULL,
        last_modified INTEGER NOT NULL,
        conf TEXT NOT NULL,
        definition TEXT NOT NULL,
        app TEXT NOT NULL,
        rev INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX bundle_jobs_rev ON bundle_jobs(rev);
    CREATE INDEX bundle_jobs_status ON bundle_jobs(status);

    CREATE TABLE bundle_actions (
        id TEXT PRIMARY KEY,
        bundle_id TEXT NOT NULL REFERENCES bundle_jobs(id) ON DELETE CASCADE,
        coord_name TEXT NOT NULL,
        coord_id TEXT,
        status TEXT NOT NULL,
        pending INTEGER NOT NULL DEFAULT 0,
        critical INTEGER NOT NULL DEFAULT 0,
        last_modified INTEGER NOT NULL,
        rev INTEGER NOT NULL DEFAULT 0,
        UNIQUE (bundle_id, coord_name)
    );
    CREATE INDEX bundle_actions_coord ON bundle_actions(coord_id);

    CREATE TABLE coord_jobs (
        id TEXT PRIMARY KEY,
        app_name TEXT NOT NULL,
        app_path TEXT NOT NULL,
        bundle_id TEXT REFERENCES bundle_jobs(id) ON DELETE CASCADE,
        external_id TEXT UNIQUE,
        user TEXT NOT NULL,
        grp TEXT,
        kind TEXT NOT NULL DEFAULT 'time',
        status TEXT NOT NULL,
        pending INTEGER NOT NULL DEFAULT 0,
        frequency TEXT NOT NULL,
        time_unit TEXT NOT NULL,
        timezone TEXT NOT NULL,
        execution TEXT NOT NULL,
        concurrency INTEGER NOT NULL,
        timeout INTEGER NOT NULL,
        throttle INTEGER NOT NULL,
        priority INTEGER NOT NULL DEFAULT 0,
        start_time INTEGER NOT NULL,
        end_time INTEGER NOT NULL,
        pause_time INTEGER,
        suspended_time INTEGER,
        last_action_number INTEGER NOT NULL DEFAULT 0,
        next_materialized_time INTEGER,
        done_materialization INTEGER NOT NULL DEFAULT 0,
        created_time INTEGER NOT NULL,
        last_modified INTEGER NOT NULL,
        conf TEXT NOT NULL,
        definition TEXT NOT NULL,
        app TEXT NOT NULL,
        rev INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX coord_jobs_bundle ON coord_jobs(bundle_id);
    CREATE INDEX coord_jobs_status ON coord_jobs(status);
    CREATE INDEX coord_jobs_rev ON coord_jobs(rev);

    CREATE TABLE coord_actions (
        id TEXT PRIMARY KEY,
        coord_id TEXT NOT NULL REFERENCES coord_jobs(id) ON DELETE CASCADE,
        action_number INTEGER NOT NULL,
        nominal_time INTEGER NOT NULL,
        created_time INTEGER NOT NULL,
        status TEXT NOT NULL,
        pending INTEGER NOT NULL DEFAULT 0,
        external_id TEXT,
        run_conf TEXT,
        error_code TEXT,
        error_message TEXT,
        held_by TEXT,
        timeout_at INTEGER,
        plan TEXT,
        trigger TEXT,
        last_modified INTEGER NOT NULL,
        rev INTEGER NOT NULL DEFAULT 0,
        UNIQUE (coord_id, action_number),
        UNIQUE (coord_id, nominal_time)
    );
    -- Plain, not partial: SQLite only uses a partial index when a query repeats its WHERE
    -- term, and `status = 'READY'` does not (the partial one was never used).
    CREATE INDEX coord_actions_status ON coord_actions(status, coord_id, nominal_time);

    CREATE INDEX coord_actions_rev ON coord_actions(rev);
    CREATE INDEX coord_actions_external ON coord_actions(external_id);

    -- Action counts per coordinator and status, kept by triggers so a roll-up is O(1)
    -- however many actions a coordinator has, and right whichever process wrote the change.
    CREATE TABLE coord_action_counts (
        coord_id TEXT NOT NULL,
        status TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (coord_id, status)
    ) WITHOUT ROWID;
    CREATE TRIGGER coord_actions_count_insert AFTER INSERT ON coord_actions BEGIN
        INSERT INTO coord_action_counts (coord_id, status, n) VALUES (NEW.coord_id, NEW.status, 1)
            ON CONFLICT (coord_id, status) DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER coord_actions_count_update AFTER UPDATE OF status ON coord_actions
        WHEN OLD.status <> NEW.status BEGIN
        UPDATE coord_action_counts SET n = n - 1 WHERE coord_id = OLD.coord_id AND status = OLD.status;
        INSERT INTO coord_action_counts (coord_id, status, n) VALUES (NEW.coord_id, NEW.status, 1)
            ON CONFLICT (coord_id, status) DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER coord_actions_count_delete AFTER DELETE ON coord_actions BEGIN
        UPDATE coord_action_counts SET n = n - 1 WHERE coord_id = OLD.coord_id AND status = OLD.status;
    END;

    CREATE TABLE input_deps (
        action_id TEXT NOT NULL REFERENCES coord_actions(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        data_in TEXT NOT NULL,
        seq INTEGER NOT NULL,
        available INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (action_id, path)
    ) WITHOUT ROWID;
    CREATE INDEX input_deps_waiting ON input_deps(path) WHERE available = 0;

    CREATE TABLE wf_jobs (
        id TEXT PRIMARY KEY,
        app_name TEXT NOT NULL,
        app_path TEXT NOT NULL,
        form TEXT NOT NULL,
        parent_id TEXT,
        external_id TEXT,
        user TEXT NOT NULL,
        grp TEXT,
        status TEXT NOT NULL,
        run INTEGER NOT NULL DEFAULT 0,
        priority INTEGER NOT NULL DEFAULT 0,
        suspend_mode TEXT,

        work_dir TEXT,
        error_code TEXT,
        error_message TEXT,
        created_time INTEGER NOT NULL,
        start_time INTEGER,
        end_time INTEGER,
        last_modified INTEGER NOT NULL,
        conf TEXT NOT NULL,
        definition TEXT NOT NULL,
        app TEXT NOT NULL,
        rev INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX wf_jobs_parent ON wf_jobs(parent_id);
    CREATE INDEX wf_jobs_external ON wf_jobs(external_id);
    CREATE INDEX wf_jobs_status ON wf_jobs(status);
    CREATE INDEX wf_jobs_rev ON wf_jobs(rev);

    CREATE TABLE wf_nodes (
        id TEXT PRIMARY KEY,
        wf_id TEXT NOT NULL REFERENCES wf_jobs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        status TEXT NOT NULL,
        attempt INTEGER NOT NULL DEFAULT 0,
        run INTEGER NOT NULL DEFAULT 0,
        pid INTEGER,
        start_ticks INTEGER,
        started INTEGER,
        ended INTEGER,
        due_time INTEGER,
        exit_code INTEGER,
        error_code TEXT,
        error_message TEXT,
        transition TEXT,
        data TEXT,
        external_id TEXT,
        last_modified INTEGER NOT NULL,
        rev INTEGER NOT NULL DEFAULT 0,
        UNIQUE (wf_id, name)
    );
    CREATE INDEX wf_nodes_status ON wf_nodes(status);

    CREATE INDEX wf_nodes_rev ON wf_nodes(rev);

    -- Node counts per workflow and status, kept by triggers: "is it over?" and max-parallel
    -- are O(1) however many nodes a workflow has, and right whichever process wrote.
    CREATE TABLE wf_node_counts (
        wf_id TEXT NOT NULL,
        status TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (wf_id, status)
    ) WITHOUT ROWID;
    CREATE TRIGGER wf_nodes_count_insert AFTER INSERT ON wf_nodes BEGIN
        INSERT INTO wf_node_counts (wf_id, status, n) VALUES (NEW.wf_id, NEW.status, 1)
            ON CONFLICT (wf_id, status) DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER wf_nodes_count_update AFTER UPDATE OF status ON wf_nodes
        WHEN OLD.status <> NEW.status BEGIN
        UPDATE wf_node_counts SET n = n - 1 WHERE wf_id = OLD.wf_id AND status = OLD.status;
        INSERT INTO wf_node_counts (wf_id, status, n) VALUES (NEW.wf_id, NEW.status, 1)
            ON CONFLICT (wf_id, status) DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER wf_nodes_count_delete AFTER DELETE ON wf_nodes BEGIN
        UPDATE wf_node_counts SET n = n - 1 WHERE wf_id = OLD.wf_id AND status = OLD.status;
    END;


    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        path TEXT,
        size INTEGER NOT NULL DEFAULT 0,
        time INTEGER NOT NULL,
        payload TEXT,
        UNIQUE (kind, path)
    );
    CREATE INDEX events_key ON events(key, id);

    -- Event schedules (seed 004). The job queue: a job's state only moves forward,
    -- PENDING_TRIGGER -> PENDING_CONSTRAINT -> PENDING_LAUNCH -> LAUNCHED (or DISCARDED).
    CREATE TABLE job_queue (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        coord_id TEXT NOT NULL REFERENCES coord_jobs(id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        created_time INTEGER NOT NULL,
        updated_time INTEGER NOT NULL,
        fired_time INTEGER,
        crons TEXT,
        held_by TEXT,
        retry_at INTEGER,
        action_id TEXT,
        priority INTEGER NOT NULL DEFAULT 0,
        rev INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX job_queue_state ON job_queue(state, coord_id);
    CREATE UNIQUE INDEX job_queue_open ON job_queue(coord_id) WHERE state = 'PENDING_TRIGGER';

    -- Which events a job consumed: an event is consumed at most once per schedule.
    CREATE TABLE job_events (
        coord_id TEXT NOT NULL,
        event_id INTEGER NOT NULL REFERENCES events(id),
        job_id INTEGER NOT NULL REFERENCES job_queue(id) ON DELETE CASCADE,
        PRIMARY KEY (coord_id, event_id)
    ) WITHOUT ROWID;
    CREATE INDEX job_events_job ON job_events(job_id);

    -- The reverse index: event key -> schedules listening on it (O(schedules it concerns)).
    CREATE TABLE event_triggers (
        key TEXT NOT NULL,
        coord_id TEXT NOT NULL REFERENCES coord_jobs(id) ON DELETE CASCADE,
        bundle_id TEXT,
        PRIMARY KEY (key, coord_id)
    ) WITHOUT ROWID;

    -- Feed directories, looked up by path when a file lands.
    CREATE TABLE event_feeds (
        coord_id TEXT NOT NULL REFERENCES coord_jobs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        path TEXT NOT NULL,
        done_flag TEXT NOT NULL,
        PRIMARY KEY (coord_id, name)
    ) WITHOUT ROWID;
    CREATE INDEX event_feeds_path ON event_feeds(path);

    -- Per schedule: events up to events_from are ignored (created / resumed later), when it
    -- last launched, and its concurrency group.
    CREATE TABLE event_schedules (
        coord_id TEXT PRIMARY KEY REFERENCES coord_jobs(id) ON DELETE CASCADE,
        events_from INTEGER NOT NULL DEFAULT 0,
        last_run INTEGER,
        grp TEXT
    );
    CREATE INDEX event_schedules_group ON event_schedules(grp);


    CREATE TABLE engine_lease (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        holder TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        mode TEXT NOT NULL,
        acquired INTEGER NOT NULL,
        heartbeat INTEGER NOT NULL,
        expires INTEGER NOT NULL
    );

    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        target TEXT NOT NULL,
        args TEXT,
        created INTEGER NOT NULL
    );

    CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        time INTEGER NOT NULL,
        user TEXT NOT NULL,
        face TEXT NOT NULL,
        command TEXT NOT NULL,
        target TEXT,
        args TEXT,
        result TEXT NOT NULL,
        error TEXT
    );
    CREATE INDEX audit_log_target ON audit_log(target);
    """,
    # 2: why a coordinator FAILED when its materialization did (oozie.md §2.3)
    """
    ALTER TABLE coord_jobs ADD COLUMN error_code TEXT;
    ALTER TABLE coord_jobs ADD COLUMN error_message TEXT;
    """,
    # 3: a partition is an event of each feed it lies in (nested feeds each see it), so an
    # event is unique by its key (the feed) and path, not by its path alone. SQLite cannot
    # change a table's constraint: the table is rebuilt, ids (and their sequence) kept, with
    # foreign keys off around the migration (job_events refers to it).
    """
    CREATE TABLE events_v3 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        path TEXT,
        size INTEGER NOT NULL DEFAULT 0,
        time INTEGER NOT NULL,
        payload TEXT,
        UNIQUE (kind, key, path)
    );
    INSERT INTO events_v3 (id, kind, key, path, size, time, payload)
        SELECT id, kind, key, path, size, time, payload FROM events;
    DELETE FROM sqlite_sequence WHERE name = 'events_v3';
    INSERT INTO sqlite_sequence (name, seq)
        SELECT 'events_v3', coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'events';
    DROP TABLE events;
    ALTER TABLE events_v3 RENAME TO events;
    CREATE INDEX events_key ON events(key, id);
    -- a rerun's job runs an action again with what fired it: later events do not join it
    ALTER TABLE job_queue ADD COLUMN rerun INTEGER NOT NULL DEFAULT 0;
    """,
    # 4: when a schedule was last resumed: cron times before it (while it was suspended) are
    # not owed to it, even before its first firing
    """
    ALTER TABLE event_schedules ADD COLUMN crons_from INTEGER;
    """,
    # 5: the process groups of killed jobs, until an engine has seen to them (SIGKILL after
    # the grace time, or found them gone): an engine start looks here, not at every KILLED
    # node in the history, and a rerun that clears the node's pid does not hide a job that
    # outlived its SIGTERM
    """
    CREATE TABLE kill_watch (
        pgid INTEGER NOT NULL,
        wf_id TEXT NOT NULL,
        node TEXT NOT NULL,
        PRIMARY KEY (pgid, wf_id, node)
    ) WITHOUT ROWID;
    INSERT OR IGNORE INTO kill_watch (pgid, wf_id, node)
        SELECT pid, wf_id, name FROM wf_nodes WHERE status = 'KILLED' AND pid IS NOT NULL;
    """,
    # 6: workflow listings newest first (`jobs`, the API's jobs, the console) read an index
    # instead of sorting the whole table: 0.3-0.7 s a page at 105,000 workflows (QA (ak)).
    # The status index gains the same order, for a listing filtered by one status.
    """
    CREATE INDEX wf_jobs_created ON wf_jobs(created_time, id);
    DROP INDEX wf_jobs_status;
    CREATE INDEX wf_jobs_status ON wf_jobs(status, created_time, id);
    """,
    # 7: a purge finds the oldest ended workflows submitted alone by their end time, a batch at
    # a time, without sorting the table for each batch. Partial: a coordinator's workflows
    # (most of them) go with their coordinator and are not in it, so they do not pay for it.
    """
    CREATE INDEX wf_jobs_ended ON wf_jobs(end_time, id) WHERE parent_id IS NULL;
    """,
    # 8: a suspend keeps its horizon (the last event when it was given): what a schedule had
    # not been handed by then still counts after the resume; what came between the suspend's
    # and the resume's horizons is a gap it ignores. One threshold could not keep the first
    # while dropping the second (QA, crash pass). replay_after: set by a resume, the events
    # after it that an engine's pump passed while the schedule was suspended are its to take.
    """
    ALTER TABLE event_schedules ADD COLUMN suspended_upto INTEGER;
    ALTER TABLE event_schedules ADD COLUMN replay_after INTEGER;
    CREATE TABLE event_gaps (
        coord_id TEXT NOT NULL REFERENCES coord_jobs(id) ON DELETE CASCADE,
        after INTEGER NOT NULL,
        upto INTEGER NOT NULL,
        PRIMARY KEY (coord_id, after)
    ) WITHOUT ROWID;
    """,
]
