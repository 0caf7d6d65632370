//! `rocesim compare RUN_DIR... --out DIR`: the report's figures with one series
//! per run, and the headline numbers side by side.

use super::report::FctArgs;
use crate::error::Error;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// Run directories (at least two); the first is the base of relative differences.
    #[arg(required = true, num_args = 2..)]
    pub run_dirs: Vec<PathBuf>,
    /// Output directory for compare.html and figures/.
    #[arg(long)]
    pub out: PathBuf,
    /// Name a run in figures and tables: --label hpcc=runs/a (repeatable).
    #[arg(long = "label", value_name = "NAME=DIR")]
    pub labels: Vec<String>,
    #[command(flatten)]
    pub fct: FctArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn compare(args: &CompareArgs) -> Result<(), Error> {
    let opts = args.fct.options()?;
    let w = crate::report::compare::compare(&args.run_dirs, &args.labels, &args.out, &opts)?;
    if !args.quiet {
        super::print_out(&format!(
            "{}wrote {} and {} figure files in {}\n",
            w.text,
            w.html.display(),
            w.figures.len(),
            args.out.join("figures").display()
        ));
    }
    Ok(())
}
