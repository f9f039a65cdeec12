//! `ssalab status DIR`: the shards of a Slurm campaign (`ssalab bench --slurm`, `ssalab fuzz
//! run --slurm`) that are done, failed, lost, running, pending or missing, and its merge (see
//! [`ssalab::slurm::status`]). Exit status: 0 when every shard is done and merged, 1 when the
//! campaign is not finished, 2 when DIR holds no campaign.

use clap::Args;
use ssalab::slurm::status::CampaignStatus;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `ssalab status`.
#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The campaign directory (the --out of `ssalab bench --slurm` or `fuzz run --slurm`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Runs `ssalab status`.
pub fn main(args: StatusArgs) -> ExitCode {
    match CampaignStatus::read(&args.dir) {
        Ok(st) => {
            let code = if st.complete() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            };
            ssalab::cli_io::print_then(&st.render(), code)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
