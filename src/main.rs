fn main() {
    std::process::exit(rocesim::cli::main());
}
