//! What `docdeck serve` does before it answers: opening the store (SQLite, or PostgreSQL
//! shared with other nodes), the keys of the start and the demo seed, and on SQLite the
//! worker that runs the turns (on PostgreSQL the node loop does, `pg::node`).

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::agent::{self, Agent};
use super::db::{Db, DbLocation, StoreError, now_ms};
use super::keys::{self, KeyError, KeyHasher};
use super::store::{Sql, Store};
use super::worker::Worker;
use super::{SeedKind, ServeOptions, jobs, pg, seed};
use crate::secret::Secret;

/// Opens (creating and migrating) the store `location` names.
pub(super) async fn open(location: &DbLocation) -> Result<Store, StoreError> {
    let location = location.clone();
    tokio::task::spawn_blocking(move || match &location {
        DbLocation::Postgres(url) => pg::PgStore::open(url).map(Store::Postgres),
        _ => Db::open(&location).map(Store::Sqlite),
    })
    .await
    .map_err(|err| StoreError::Task(err.to_string()))?
}

/// The keys of the start and the demo seed's claim, in one transaction on either store;
/// the outer error is the database's, the inner one says why the key given cannot be used
/// (nothing is then written).
pub(super) async fn prepare(
    store: &Store,
    options: &ServeOptions,
) -> Result<Result<Prepared, KeyError>, StoreError> {
    let options = options.clone();
    store.write(move |sql| prepare_in(sql, &options)).await
}

/// On SQLite: fails the turns a stop interrupted (unless the agent runs them again),
/// starts the worker and gives it the jobs with turns to run.
pub(super) async fn start_worker(
    db: &Db,
    agent: Arc<dyn Agent>,
    archive_after_ms: i64,
    node: &str,
) -> Result<(Worker, JoinHandle<()>), StoreError> {
    if !agent.reruns_interrupted_turns() {
        let kept = agent.clone();
        let failed = db
            .call(move |conn| {
                jobs::fail_interrupted(conn, agent::INTERRUPTED, now_ms(), |id, turn| {
                    kept.output_of(id, turn)
                })
            })
            .await?;
        for id in failed {
            tracing::warn!(job = %id, "a turn was running when the service stopped: {}", agent::INTERRUPTED);
        }
    }
    let (worker, task) = Worker::start(db.clone(), agent, archive_after_ms, node);
    let active = db.call(jobs::active_ids).await?;
    for id in active {
        worker.kick(id);
    }
    Ok((worker, task))
}

/// Writes the demo seed's views a day per call, so other requests get the writer in
/// between.
pub(super) async fn write_seed_views(
    store: &Store,
    views: seed::PendingViews,
) -> Result<(usize, usize), StoreError> {
    let mut days = tokio::task::spawn_blocking(move || views.days())
        .await
        .map_err(|err| StoreError::Task(err.to_string()))??;
    loop {
        let (back, more) = store
            .write(move |sql| {
                let more = days.next(sql)?;
                Ok((days, more))
            })
            .await?;
        days = back;
        if !more {
            return Ok(days.written());
        }
    }
}

pub(super) struct Prepared {
    pub keys: KeyHasher,
    pub generated_key: Option<Secret>,
    pub seeded_jobs: Vec<seed::SeededJob>,
    pub pending_views: Option<seed::PendingViews>,
    pub seed_refused: Option<seed::Footprint>,
}

/// The seed's claim and the keys, in the caller's transaction.
fn prepare_in(
    sql: &mut dyn Sql,
    options: &ServeOptions,
) -> Result<Result<Prepared, KeyError>, StoreError> {
    let now = now_ms();
    let hasher = KeyHasher::load(sql)?;
    // A key that cannot be used stops the start before anything is written.
    if let Some(key) = &options.api_key {
        match keys::stored(sql, &hasher, &options.project, key) {
            Ok(_) => {}
            Err(KeyError::Store(err)) => return Err(err),
            Err(refused) => return Ok(Err(refused)),
        }
    }
    // The seed's claim first: the key registered below would otherwise make every project
    // look as if it had existed before. Its views are written later, in the background.
    let claim = match options.seed {
        SeedKind::Demo => {
            let today = chrono::Utc::now().date_naive();
            // Beside a real agent, invented jobs get no made-up pull request links.
            let links = match (&options.real_agent, options.demo_change) {
                (Some(_), true) => seed::Links::DemoChange,
                (Some(_), false) => seed::Links::None,
                (None, _) => seed::Links::Invented,
            };
            Some(seed::claim_demo_in(
                sql,
                &options.project,
                today,
                &seed_defaults(options),
                links,
            )?)
        }
        SeedKind::None => None,
    };
    let (mut seeded_jobs, pending_views, seed_refused) = match claim {
        Some(seed::Claim::Seed { jobs, views }) => (jobs, Some(views), None),
        Some(seed::Claim::Resume(views)) => (Vec::new(), Some(views), None),
        Some(seed::Claim::Refused(footprint)) => (Vec::new(), None, Some(footprint)),
        Some(seed::Claim::AlreadySeeded) | None => (Vec::new(), None, None),
    };
    // As a client first reads them: a seeded job idle past --archive-after is archived
    // (the demo's 20-day-old job), not remembered as completed until its next read.
    let archive_after_ms = i64::try_from(options.archive_after.as_millis()).unwrap_or(i64::MAX);
    for seeded in &mut seeded_jobs {
        if let Some(record) =
            jobs::record::get(sql, &options.project, &seeded.id, now, archive_after_ms)?
        {
            seeded.job = record.to_wire();
        }
    }
    let generated_key = match keys::at_start(
        sql,
        &hasher,
        &options.project,
        options.api_key.as_ref(),
        now,
    ) {
        Ok(generated) => generated,
        Err(KeyError::Store(err)) => return Err(err),
        Err(refused) => return Ok(Err(refused)),
    };
    Ok(Ok(Prepared {
        keys: hasher,
        generated_key,
        seeded_jobs,
        pending_views,
        seed_refused,
    }))
}

/// Where the seed's jobs say they worked: beside a real agent, its repository, branch and
/// program, as the jobs it runs will say (`docdeck demo`'s merged job was made in that
/// repository); otherwise the simulated agent's defaults.
fn seed_defaults(options: &ServeOptions) -> jobs::JobDefaults {
    let Some(real) = &options.real_agent else {
        return options.defaults.clone();
    };
    // A folder as the agent reports it (`RealAgent::repository`): its canonical path.
    let folder = std::path::Path::new(&real.repo);
    let repository = match folder.is_dir().then(|| folder.canonicalize()) {
        Some(Ok(path)) => path.display().to_string(),
        _ => real.repo.clone(),
    };
    jobs::JobDefaults {
        repository,
        git_ref: (real.base_branch.clone()).or_else(|| options.defaults.git_ref.clone()),
        model: real.model(),
    }
}
