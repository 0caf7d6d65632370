//! `rocesim report RUN_DIR`: report.html and figures from a run directory, and
//! the FCT slowdown table by flow-size bucket on the terminal.

use crate::error::{Error, InputError};
use crate::report::{self, ReportOptions};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// A directory written by `rocesim run --out DIR`.
    pub run_dir: PathBuf,
    #[command(flatten)]
    pub fct: FctArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// How flows are bucketed (shared with `compare`).
#[derive(clap::Args, Debug, Clone)]
pub struct FctArgs {
    /// Flow-size bucket width, in percent of the flows (as fct_analysis.py's -s).
    #[arg(long, default_value_t = 5)]
    pub step: u32,
    /// Only flows to this destination port (HPCC flow files: 100 = background, 200 = incast).
    #[arg(long)]
    pub dport: Option<u16>,
}

impl FctArgs {
    pub fn options(&self) -> Result<ReportOptions, Error> {
        if self.step == 0 || 100 % self.step != 0 {
            return Err(InputError::new(
                "--step",
                "",
                format!(
                    "{} is not valid (valid: a divisor of 100, e.g. 5, 10, 20)",
                    self.step
                ),
            )
            .into());
        }
        Ok(ReportOptions {
            step: self.step,
            dport: self.dport,
        })
    }
}

pub fn report(args: &ReportArgs) -> Result<(), Error> {
    let opts = args.fct.options()?;
    let w = report::report(&args.run_dir, &opts)?;
    if !args.quiet {
        super::print_out(&format!(
            "{}wrote {} and {} figure files in {}\n",
            w.text,
            w.html.display(),
            w.figures.len(),
            args.run_dir.join("figures").display()
        ));
    }
    Ok(())
}
