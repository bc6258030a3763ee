//! The model's threads run below the safety path (issue 31). On a companion computer the LLM
//! wants every core while the MAVLink link, the gate, the watchdog and the recorder share them;
//! a decode must never delay a telemetry read or a watchdog deadline. So the inference thread
//! lowers itself before it loads the model: SCHED_BATCH (the kernel treats it as CPU-bound and
//! does not let it preempt others on wake-up) and nice 10 (about a tenth of a nice-0 thread's
//! share when both want the core). llama.cpp's compute threads are created by this thread and
//! inherit both. Raising a priority needs root; lowering one never does, so this always works
//! on Linux without privileges. Elsewhere it is a no-op.

/// How the model's threads are scheduled: the config's `[policy.llama] inference_priority`.
pub use alpha3_core::config::InferencePriority;

/// The niceness [`InferencePriority::Low`] asks for.
pub const LOW_NICE: i32 = 10;

/// Applies `priority` to the calling thread; what it became, for the log, or why not.
pub fn apply(priority: InferencePriority) -> Result<String, String> {
    match priority {
        InferencePriority::Normal => Ok("normal".into()),
        InferencePriority::Low => lower(),
    }
}

#[cfg(target_os = "linux")]
fn lower() -> Result<String, String> {
    use thread_priority::unix::{
        NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy,
        thread_native_id,
    };
    use thread_priority::{ThreadPriority, ThreadPriorityValue};
    // Never above where the process already runs (`nice -n 15 alpha3 …` stays at 15): raising
    // a priority would need root.
    let target = current_nice().map_or(LOW_NICE, |n| n.max(LOW_NICE));
    let value = (0..=99u8)
        .find(|p| crossplatform_nice(*p) == target)
        .ok_or_else(|| format!("no priority value gives nice {target}"))?;
    let value = ThreadPriorityValue::try_from(value).map_err(|e| e.to_string())?;
    set_thread_priority_and_policy(
        thread_native_id(),
        ThreadPriority::Crossplatform(value),
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Batch),
    )
    .map_err(|e| format!("{e:?}"))?;
    Ok(format!("SCHED_BATCH, nice {target}"))
}

/// The niceness thread-priority gives a normal-policy thread for its 0..99 value (its own
/// mapping, reversed: 0 is nice 19, 99 is nice -20).
#[cfg(target_os = "linux")]
fn crossplatform_nice(p: u8) -> i32 {
    let ratio = 1f32 - f32::from(p) / 99.0;
    i32::from((39.0 * ratio) as i8) - 20
}

/// The calling thread's nice value, from `/proc/thread-self/stat` (field 19).
#[cfg(target_os = "linux")]
pub fn current_nice() -> Option<i32> {
    stat_field(19)?.parse().ok()
}

/// Field `n` (1-based) of `/proc/thread-self/stat`; the command name may hold spaces, so
/// fields are counted after its closing parenthesis (field 2).
#[cfg(target_os = "linux")]
fn stat_field(n: usize) -> Option<String> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    rest.split_whitespace()
        .nth(n.checked_sub(3)?)
        .map(str::to_string)
}

#[cfg(not(target_os = "linux"))]
fn lower() -> Result<String, String> {
    Ok("unchanged (only lowered on Linux)".into())
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// This thread's nice and scheduling policy, as the kernel reports them.
    fn nice_and_policy() -> (i32, u32) {
        (
            current_nice().unwrap(),
            stat_field(41).unwrap().parse().unwrap(),
        )
    }

    #[test]
    fn the_value_mapping_reaches_nice_ten() {
        assert_eq!(crossplatform_nice(0), 19);
        assert_eq!(crossplatform_nice(99), -20);
        assert!((0..=99u8).any(|p| crossplatform_nice(p) == LOW_NICE));
    }

    #[test]
    fn low_is_batch_below_normal_and_inherited_by_threads_it_starts() {
        let (before, _) = nice_and_policy();
        std::thread::spawn(move || {
            let expected = before.max(LOW_NICE);
            assert_eq!(
                apply(InferencePriority::Low).unwrap(),
                format!("SCHED_BATCH, nice {expected}")
            );
            const SCHED_BATCH: u32 = 3;
            assert_eq!(nice_and_policy(), (expected, SCHED_BATCH));
            // A compute thread llama.cpp starts from here inherits both.
            let child = std::thread::spawn(nice_and_policy).join().unwrap();
            assert_eq!(child, (expected, SCHED_BATCH));
        })
        .join()
        .unwrap();
        // The caller's own thread is untouched.
        assert_eq!(nice_and_policy().0, before);
    }
}
