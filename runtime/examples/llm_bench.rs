//! LLM speed on this device, in one run with the same threads: decode tokens/s of our llama
//! backend (free and schema-constrained) against llama.cpp's own `simple` decode loop, prompt
//! tokens evaluated per turn with and without KV reuse, and a full 10-turn episode's wall time.
//!
//! ```sh
//! . .venv/alpha3-env
//! cargo run -p alpha3 --example llm_bench -- [MODEL.gguf] [--threads N] [--repeats N] [--json]
//! ```

use alpha3::policy::llama::speed::{LlmBenchOptions, run};
use anyhow::Context;
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let mut model = std::env::var_os("ALPHA3_MODEL").map(PathBuf::from);
    let mut threads = 2;
    let mut repeats = None;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = args.next().context("--threads N")?.parse()?,
            "--repeats" => repeats = Some(args.next().context("--repeats N")?.parse()?),
            "--json" => json = true,
            other => model = Some(PathBuf::from(other)),
        }
    }
    let model = model.context("give the GGUF path or set ALPHA3_MODEL (. .venv/alpha3-env)")?;
    let mut opts = LlmBenchOptions::new(model);
    opts.threads = threads;
    if let Some(r) = repeats {
        opts.repeats = r;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(run(&opts))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_markdown());
        println!(
            "per turn: prompt {:?}\n          evaluated with reuse {:?}\n          evaluated without {:?}",
            report.prompt_tokens, report.evaluated_with_reuse, report.evaluated_without_reuse
        );
    }
    Ok(())
}
