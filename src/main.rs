//! The `adjutant` command: opens the window, or runs a headless subcommand.

use adjutant::rules::games::{GameId, Library, RulesetSource};
use adjutant::rules::report::StateReport;
use adjutant::rules::save;
use adjutant::rules::script::{self, Script};
use adjutant::{app, paths};
use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Adjutant keeps the books for wargames played with playing cards and d6.
///
/// Run without a subcommand to open the window. Games are saved after every
/// change in the data directory and can be resumed.
#[derive(Parser, Debug)]
#[command(name = "adjutant", version, about, long_about)]
struct Cli {
    /// Resume the most recent saved game when the window opens.
    #[arg(long)]
    resume: bool,
    /// Folder for saves and learned decks (default: your data folder,
    /// e.g. ~/.local/share/adjutant).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Folder whose rulesets/*.ron files replace the built-in rulesets
    /// (default: your config folder, e.g. ~/.config/adjutant).
    #[arg(long, global = true, value_name = "DIR")]
    config_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Look up rules: lists a game's entries matching the words you give.
    ///
    /// Example: `adjutant rules t52 panic`
    Rules {
        /// Game: t52, gentlemen-of-war, napoleonic, card-activation, gunfight.
        game: String,
        /// Words to look for (all must match); leave out to list every entry.
        query: Vec<String>,
    },
    /// Check every ruleset file (built-in and your overrides); exits non-zero
    /// naming any bad file, with line and column.
    Check,
    /// Print a saved game's log, one line per event.
    Log {
        /// The save file (.ron).
        save: PathBuf,
    },
    /// Play a game from a script of answers, printing every request, answer
    /// and event. See docs/scripts.md for the script format.
    Play {
        /// The script (.ron).
        script: PathBuf,
        /// Print only the final state as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn library(cli: &Cli) -> (Library, Vec<adjutant::rules::RulesetError>) {
    let dir = cli
        .config_dir
        .as_ref()
        .map_or_else(paths::ruleset_dir, |d| d.join("rulesets"));
    Library::load(Some(&dir))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("adjutant: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<ExitCode> {
    if let Some(d) = &cli.data_dir {
        // SAFETY: single-threaded at this point; paths:: reads it later.
        unsafe { std::env::set_var("ADJUTANT_DATA_DIR", d) };
    }
    match &cli.command {
        None => open_window(cli),
        Some(Cmd::Rules { game, query }) => rules(cli, game, &query.join(" ")),
        Some(Cmd::Check) => check(cli),
        Some(Cmd::Log { save }) => log(cli, save),
        Some(Cmd::Play { script, json }) => play(cli, script, *json),
    }
}

fn open_window(cli: &Cli) -> Result<ExitCode> {
    let config = cli.config_dir.as_ref().map(|d| d.join("rulesets"));
    let mut state = app::AppState::new(config, None);
    if cli.resume {
        match state.saves.first() {
            Some(s) => state.execute(app::Command::Resume(s.path.clone())),
            None => state.messages.push("No saved game to resume.".into()),
        }
    }
    app::run(state).map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

fn game_id(game: &str) -> Result<GameId> {
    GameId::from_id(game).with_context(|| {
        let all: Vec<&str> = GameId::ALL.iter().map(|g| g.id()).collect();
        format!("unknown game `{game}`; choose one of: {}", all.join(", "))
    })
}

fn rules(cli: &Cli, game: &str, query: &str) -> Result<ExitCode> {
    let game = game_id(game)?;
    let (lib, errors) = library(cli);
    for e in &errors {
        eprintln!("warning: {e}");
    }
    let rs = lib.get(game).context("this game's ruleset did not load")?;
    let hits = rs.search(query);
    if hits.is_empty() {
        println!("No {} rule mentions \"{query}\".", rs.title);
        return Ok(ExitCode::from(1));
    }
    for r in hits {
        println!("== {} [{}]", r.title, r.id);
        println!("{}", r.text);
        if let Some(ruling) = &r.ruling {
            println!("Ruling: {ruling}");
        }
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

fn check(cli: &Cli) -> Result<ExitCode> {
    let (lib, errors) = library(cli);
    for (game, rs) in lib.games() {
        let from = match lib.source(game) {
            Some(RulesetSource::File(p)) => p.display().to_string(),
            _ => "built-in".to_string(),
        };
        println!(
            "ok   {:<18} {} rules entries ({from})",
            game.id(),
            rs.rules.len()
        );
    }
    for e in &errors {
        println!("BAD  {e}");
    }
    if errors.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{} bad ruleset file(s)", errors.len());
        Ok(ExitCode::FAILURE)
    }
}

fn log(cli: &Cli, path: &PathBuf) -> Result<ExitCode> {
    let (lib, _) = library(cli);
    let loaded = save::load(path, &lib)?;
    for e in &loaded.skipped {
        eprintln!("warning: skipped {e}");
    }
    if &loaded.from != path {
        eprintln!("warning: read from backup {}", loaded.from.display());
    }
    let s = loaded.session.state();
    for l in &s.log {
        match &l.rule {
            Some(rule) => println!("[round {}] {}  ({rule})", l.round, l.text),
            None => println!("[round {}] {}", l.round, l.text),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn play(cli: &Cli, path: &PathBuf, json: bool) -> Result<ExitCode> {
    let (lib, errors) = library(cli);
    for e in &errors {
        eprintln!("warning: {e}");
    }
    let script = Script::load(path)?;
    let mut sink = std::io::sink();
    let mut stdout = std::io::stdout();
    let out: &mut dyn std::io::Write = if json { &mut sink } else { &mut stdout };
    let session = match script::play(&script, &lib, out) {
        Ok(s) => s,
        Err(e) => bail!("{}: {e}", path.display()),
    };
    if json {
        let report = StateReport::of(session.game().id(), session.state());
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(ExitCode::SUCCESS)
}
