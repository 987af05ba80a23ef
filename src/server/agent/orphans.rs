//! Agents a killed service left running. Each turn's process group is noted in a file
//! under the work folder (`running/`) with its leader's start time, and the file is
//! removed when the turn ends. A service stopped by `kill -9` cannot remove it: at the next
//! start every group still noted is killed, and waited for, before any turn runs, so no
//! orphan keeps writing in a worktree a follow-up works in. (The crate forbids `unsafe`,
//! so the agent cannot be given `PR_SET_PDEATHSIG` between fork and exec.)

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where the groups of running turns are noted.
#[must_use]
pub fn records_dir(work_dir: &Path) -> PathBuf {
    work_dir.join("running")
}

/// Notes that the turn's group `pgid` runs, in `record`.
pub fn note(record: &Path, pgid: u32) {
    let Some(started) = start_time(pgid) else {
        return;
    };
    let written = record
        .parent()
        .map_or(Ok(()), crate::sqlite::create_private_dir)
        .and_then(|()| std::fs::write(record, format!("{pgid} {started}\n")));
    if let Err(err) = written {
        tracing::warn!(record = %record.display(), "cannot note the agent's process group: {err}");
    }
}

/// Forgets a turn's group: it ended, and was killed with everything it started.
pub fn forget(record: &Path) {
    let _ = std::fs::remove_file(record);
}

/// Kills every group noted in `work_dir` that still runs, waits until each is gone (up to
/// a few seconds), and forgets them all. Returns how many were killed.
pub fn reap(work_dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(records_dir(work_dir)) else {
        return 0;
    };
    let mut killed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let noted = std::fs::read_to_string(&path).ok().and_then(|text| {
            let mut words = text.split_whitespace();
            Some((words.next()?.parse::<u32>().ok()?, words.next()?.to_owned()))
        });
        if let Some((pgid, started)) = noted
            && still_ours(pgid, &started)
        {
            tracing::warn!(
                pgid,
                turn = %path.file_name().unwrap_or_default().to_string_lossy(),
                "an agent left running by a service that was killed: stopping it before any turn runs"
            );
            kill_and_wait(pgid);
            killed += 1;
        }
        forget(&path);
    }
    killed
}

/// Whether group `pgid` still has members that are the noted turn's: its leader with the
/// noted start time, or, with the leader gone, any member (the kernel gives no new process
/// an id still used by a group, so members of a group without its leader are the old ones).
fn still_ours(pgid: u32, started: &str) -> bool {
    match start_time(pgid) {
        Some(now) => now == started,
        None => !members(pgid).is_empty(),
    }
}

fn kill_and_wait(pgid: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while !members(pgid).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The fields of `/proc/PID/stat` after the command's name (state first).
fn stat_fields(pid: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// When process `pid` started (clock ticks since boot), unless it is gone or a zombie.
fn start_time(pid: u32) -> Option<String> {
    let fields = stat_fields(&pid.to_string())?;
    if fields.first().is_some_and(|state| state == "Z") {
        return None;
    }
    fields.get(19).cloned()
}

/// Live processes of group `pgid`.
fn members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let group = pgid.to_string();
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            stat_fields(&pid.to_string()).is_some_and(|fields| {
                fields.first().is_some_and(|state| state != "Z") && fields.get(2) == Some(&group)
            })
        })
        .collect()
}
