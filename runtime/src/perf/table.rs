//! The human-readable form of a [`PerfReport`].

use super::PerfReport;
use std::fmt::Write;

pub fn render(r: &PerfReport) -> String {
    let mut s = String::new();
    let g = &r.gate;
    let w = &r.world;
    let m = &r.mavlink;
    let _ = writeln!(
        s,
        "alpha3 {} perf on {}-{} ({} CPUs, load {}){}",
        r.alpha3_version,
        r.arch,
        r.os,
        r.cpus,
        r.load_average
            .map_or_else(|| "?".to_string(), |l| format!("{l:.2}")),
        if r.quick {
            " — quick run, small counts"
        } else {
            ""
        }
    );
    let _ = writeln!(s, "{:<44} {:>14}", "figure", "value");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(s, "{k:<44} {v:>14}");
    };
    row(
        &format!(
            "gate airspace ({})",
            g.scenario.chars().take(24).collect::<String>()
        ),
        format!(
            "{}v {}z {}t {}p",
            g.fence_vertices, g.no_fly_zones, g.traffic, g.peer_plans
        ),
    );
    row(
        &format!("gate evaluate p50 / p99, µs ({})", g.verdict),
        format!("{:.2} / {:.2}", g.evaluate_p50_us, g.evaluate_p99_us),
    );
    row(
        "gate time_to_breach p50 / p99, µs",
        format!(
            "{:.2} / {:.2}",
            g.time_to_breach_p50_us, g.time_to_breach_p99_us
        ),
    );
    row("world steps/s", format!("{:.0}", w.steps_per_s));
    row(
        &format!("world real-time factor (dt {} ms)", w.dt_ms),
        format!("{:.0}×", w.real_time_factor),
    );
    row("MAVLink decode, frames/s", format!("{:.0}", m.frames_per_s));
    row("MAVLink decode, MB/s", format!("{:.1}", m.megabytes_per_s));
    row(
        "core share for a PX4-rate stream",
        format!("{:.3} %", m.px4_stream_core_pct),
    );
    match &r.llm {
        Some(l) => {
            row(
                &format!("LLM model ({} threads)", l.threads),
                l.model.chars().take(14).collect(),
            );
            row("LLM load, ms", format!("{:.0}", l.load_ms));
            row("LLM time to first token, ms", format!("{:.0}", l.ttft_ms));
            row("LLM decode, tokens/s", format!("{:.1}", l.decode_tps));
            row(
                "LLM decode, constrained, tokens/s",
                format!("{:.1}", l.constrained_decode_tps),
            );
            row(
                "llama.cpp reference decode, tokens/s",
                format!("{:.1}", l.reference_decode_tps),
            );
            row(
                &format!("LLM decision ({} turns, mean), ms", l.turns),
                format!("{:.0}", l.decision_ms),
            );
        }
        None => row("LLM", "no model".to_string()),
    }
    if let Some(w) = &r.worker_memory {
        row(
            &format!(
                "one model worker alone, MB (ctx {}, batch {}, KV {})",
                w.context_tokens,
                w.batch_tokens,
                w.kv_cache_type.name()
            ),
            format!("{:.0}", w.resident_mb),
        );
        row(
            "  of it anonymous / model file, MB",
            format!("{:.0} / {:.0}", w.anon_mb, w.file_mb),
        );
        row(
            "a further worker on the same model, MB",
            format!("{:.0}", w.further_worker_mb),
        );
        row(
            "each of two workers sharing the model, MB",
            format!("{:.0}", w.per_worker_of_two_mb()),
        );
    }
    if let Some(u) = &r.under_load {
        for (name, t) in [
            ("idle", &u.idle),
            ("LLM normal", &u.busy_normal),
            ("LLM lowered", &u.busy_low),
        ] {
            row(
                &format!(
                    "{} Hz tick late p50/p99/max µs ({name})",
                    1000 / u.period_ms.max(1)
                ),
                format!(
                    "{:.0}/{:.0}/{:.0}",
                    t.late_p50_us, t.late_p99_us, t.late_max_us
                ),
            );
            row(
                &format!("tick gate work p50/p99/max µs ({name})"),
                format!(
                    "{:.0}/{:.0}/{:.0}",
                    t.gate_p50_us, t.gate_p99_us, t.gate_max_us
                ),
            );
            if let Some(tps) = t.decode_tps {
                row(
                    &format!("decode meanwhile, tokens/s ({name})"),
                    format!("{tps:.1}"),
                );
            }
        }
    }
    let _ = writeln!(s);
    for c in &r.checks {
        let _ = writeln!(
            s,
            "{} {}: {:.3} (goal {})",
            if c.ok { "ok  " } else { "MISS" },
            c.what,
            c.value,
            c.goal
        );
    }
    s
}
