//! The `adjutant` command: opens the window, or runs a headless subcommand.

use adjutant::rules::games::{GameId, Library, RulesetSource};
use adjutant::rules::report::StateReport;
use adjutant::rules::save;
use adjutant::rules::script::{self, Script};
use adjutant::vision::dice::scale::DiceScale;
use adjutant::{app, paths};
use anyhow::{Context, Result, bail};
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod vision_cli;

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
    /// Which webcam to read (0 is the first). Without a camera the app still
    /// runs: enter cards and dice by hand or let it roll.
    #[arg(long, value_name = "N", default_value_t = 0)]
    camera: u32,
    /// Read recorded frames (.jpg/.png in DIR, in name order, looping)
    /// instead of a camera.
    #[arg(long, value_name = "DIR")]
    replay: Option<PathBuf>,
    /// How much the window enlarges frames before reading their dice: auto
    /// (measure it over the first frames with dice), or a number from 1 to 3
    /// such as 1.5 or 2 (for a
    /// camera far above the table, whose dice look under about 30 px).
    #[arg(long, value_name = "SCALE", default_value = "auto")]
    dice_scale: DiceScale,
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
        /// A question or words to look for ("who goes first", "panic test");
        /// entries matching more of them come first; leave out to list every
        /// entry.
        query: Vec<String>,
        /// Write the game's built-in ruleset into your rulesets folder
        /// (see "Where files live" in the README) as the start of your own
        /// house rules; an existing file there is left alone.
        #[arg(long)]
        export: bool,
    },
    /// Check every ruleset file (built-in and your overrides); exits non-zero
    /// naming any bad file, with line and column. Given files, checks those
    /// instead, wherever they are (an edited copy before you put it in
    /// place), each for the game its name or its `id` names.
    Check {
        /// Ruleset files to check (.ron).
        files: Vec<PathBuf>,
    },
    /// Print a saved game's log, one line per event.
    Log {
        /// The save file (.ron).
        save: PathBuf,
    },
    /// Read the cards and dice in photos. Prints a summary per image, or with
    /// --json one JSON object per image per line. An unreadable file is
    /// named on stderr and (with --json) gets a line with its "error" and
    /// empty lists; the other photos are read, and the exit code is then
    /// non-zero.
    Scan {
        /// Print one JSON object per image.
        #[arg(long)]
        json: bool,
        /// Use this card model file instead of the built-in one (or your
        /// learned deck).
        #[arg(long, value_name = "FILE")]
        card_model: Option<PathBuf>,
        /// Ignore learned decks and use the built-in card model.
        #[arg(long)]
        general: bool,
        /// Use this dice model file instead of the built-in one.
        #[arg(long, value_name = "FILE")]
        dice_model: Option<PathBuf>,
        /// How much to enlarge each photo before reading its dice: 1 (as it
        /// is), up to 3, e.g. 1.5 or 2 for dice that look small (under about
        /// 30 px), or
        /// auto: read every photo at every scale and keep the one scale the
        /// photos together read most surely at (give photos of one table by
        /// one camera).
        #[arg(long, value_name = "SCALE", default_value = "1")]
        dice_scale: DiceScale,
        /// The photos.
        #[arg(required = true)]
        images: Vec<PathBuf>,
    },
    /// Measure the readers on labelled photo sets (folders with labels.json):
    /// precision, recall, exact reads, confusions, unread count and time.
    /// It measures the built-in models (or --card-model, or a model file in
    /// your config folder's models/, which it names), never a learned deck:
    /// `scan --general` reads as it does.
    Eval {
        /// Print one JSON object per set.
        #[arg(long)]
        json: bool,
        /// Use this card model file instead of the built-in one.
        #[arg(long, value_name = "FILE")]
        card_model: Option<PathBuf>,
        /// Only images whose file name starts with this (e.g. `test_`).
        #[arg(long, value_name = "PREFIX")]
        only: Option<String>,
        /// Only the images the built-in models were not fitted on (all but
        /// edje's `train_*` and sarm's `single_*` card photos; the byler-d6
        /// held-out blocks; every image of another set).
        #[arg(long)]
        held_out: bool,
        /// Only fold K of N (`K/N`, K from 0) of the images left by the other
        /// filters: file names sorted, cut into blocks of consecutive images,
        /// blocks dealt round-robin to N folds. With `fit-cards --leave-out`
        /// this makes a development split out of the fitting images.
        #[arg(long, value_name = "K/N")]
        fold: Option<String>,
        /// How much to enlarge each photo of a dice set before reading its dice: 1 (as it
        /// is), up to 3, e.g. 1.5 or 2 for dice that look small (under about
        /// 30 px), or
        /// auto: read every photo at every scale and keep the one scale the
        /// photos together read most surely at.
        #[arg(long, value_name = "SCALE", default_value = "1")]
        dice_scale: DiceScale,
        /// The set folders.
        #[arg(required = true)]
        sets: Vec<PathBuf>,
    },
    /// Teach Adjutant your deck: a folder of photos, one card per photo, each
    /// file named by its card code (As.jpg, Th.jpg, XR.jpg, XB.jpg...). The
    /// learned model is saved in your data folder and used from then on.
    LearnDeck {
        /// The folder of photos.
        dir: PathBuf,
        /// Name for the deck (default: the folder's name).
        #[arg(long)]
        name: Option<String>,
        /// The photos are named like the sarm-slate-phone set
        /// (`single_c10.jpg` = ten of clubs) instead of by card code.
        #[arg(long)]
        sarm_names: bool,
    },
    /// Rebuild the general card model from labelled photo sets (see
    /// docs/models.md). Sources are merged into one model.
    FitCards {
        /// Where to write the model (e.g. models/cards.bin).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// A labelled set, optionally only the images whose name starts
        /// with PREFIX: `DIR` or `DIR:PREFIX` (e.g. `.../edje-pinochle-phone:train_`).
        #[arg(long = "set", value_name = "DIR[:PREFIX]")]
        sets: Vec<String>,
        /// A folder of code-named single-card photos (as for learn-deck).
        #[arg(long, value_name = "DIR")]
        deck: Vec<PathBuf>,
        /// A folder of single-card photos named like the sarm-slate-phone set
        /// (`single_c10.jpg`).
        #[arg(long, value_name = "DIR")]
        sarm_singles: Vec<PathBuf>,
        /// Drop samples within this cosine distance of a kept sample of the
        /// same label (0.03 for the built-in model).
        #[arg(long, value_name = "DIST")]
        condense: Option<f32>,
        /// Leave fold K of N (`K/N`, as `eval --fold`) out of every --set
        /// (a development split; the built-in model uses all images).
        #[arg(long, value_name = "K/N")]
        leave_out: Option<String>,
    },
    /// Rebuild the dice model from a labelled dice set (see docs/models.md).
    FitDice {
        /// The labelled dice set folder.
        set: PathBuf,
        /// Where to write the model (e.g. models/dice.bin).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Card photos used only as "not a die" examples (repeatable).
        /// `DIR`: all its photos but `single_*`, at three sizes, every epoch.
        /// `DIR:PREFIX`: the photos whose name starts with PREFIX, at their
        /// own size, a fresh sample of them each epoch.
        #[arg(long, value_name = "DIR[:PREFIX]")]
        cards: Vec<String>,
        /// Random seed of the fit (the shipped model uses the default); other
        /// seeds show how much a choice depends on the luck of one fit.
        #[arg(long, default_value_t = 7)]
        seed: u64,
        /// Output channels of the face classifier's two convolutions
        /// (`C1,C2`; the shipped model uses the default).
        #[arg(long, value_name = "C1,C2", value_delimiter = ',', num_args = 1)]
        #[arg(default_value = CNN_WIDTHS)]
        cnn_widths: Vec<usize>,
        /// Final fit: weights on the training and tune parts for the fixed
        /// epoch count, the last weights kept, and the two thresholds of this
        /// model (a selection fit, the default protocol). See docs/models.md.
        #[arg(long, hide = true, value_name = "SELECT_MODEL", conflicts_with_all = ["check_final", "check_select"])]
        r#final: Option<PathBuf>,
        /// Check the final-fit protocol without the held-out part: as --final
        /// but adding only the earlier half of the tune part to the weights'
        /// images; the later half is logged per epoch and chosen on nothing.
        #[arg(
            long,
            hide = true,
            value_name = "SELECT_MODEL",
            conflicts_with = "check_select"
        )]
        check_final: Option<PathBuf>,
        /// The baseline of --check-final: a selection fit that chooses on the
        /// earlier half of the tune part only (the later half is left out).
        #[arg(long, hide = true)]
        check_select: bool,
        /// Synthetic dice of random colours drawn per classifier epoch on
        /// patches of the training photos (the shipped model: 8000).
        #[arg(long, value_name = "N", default_value_t = 0)]
        synthetic: usize,
        /// Renderer of the synthetic dice: 1 (the shipped model's) or 2
        /// (adds specular streaks, translucent bodies, deeper side faces
        /// and low-contrast pips).
        #[arg(long, value_name = "STYLE", default_value_t = 1,
              value_parser = clap::value_parser!(u8).range(1..=2))]
        synthetic_style: u8,
        /// Jittered crops per epoch around each detector candidate on a
        /// training die, besides its plain crop (the shipped model: 0).
        #[arg(long, value_name = "N", default_value_t = 0)]
        candidate_jitter: usize,
        /// Another labelled dice set whose photos all join the training part
        /// (e.g. your own, kept from the table view:
        /// ~/.local/share/adjutant/captures/dice). Repeatable.
        #[arg(long, value_name = "DIR")]
        extra_train: Vec<PathBuf>,
        /// Table photos (DIR:PREFIX, the photos whose name starts with PREFIX)
        /// on which drawn dice are placed as extra detector training images,
        /// away from the cards. Repeatable.
        #[arg(long, value_name = "DIR:PREFIX")]
        detector_scenes: Vec<String>,
        /// Refit only the detector and write BASE_MODEL with it: the
        /// classifier and both thresholds are BASE_MODEL's.
        #[arg(long, value_name = "BASE_MODEL")]
        detector_only: Option<PathBuf>,
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

fn library() -> (Library, Vec<adjutant::rules::RulesetError>) {
    Library::load(Some(&paths::ruleset_dir()))
}

/// `fit-dice --cnn-widths` unless given, as it is typed: the shipped
/// model's widths (`cnn::C1`, `cnn::C2`).
const CNN_WIDTHS: &str = "8,16";

/// The options that only the window reads, as typed (`--dice-scale`),
/// with their argument ids.
const WINDOW_ONLY: [(&str, &str); 4] = [
    ("resume", "--resume"),
    ("camera", "--camera"),
    ("replay", "--replay"),
    ("dice_scale", "--dice-scale"),
];

/// The window's own options given together with a subcommand, which would
/// otherwise be ignored without a word (`adjutant --dice-scale 2 scan ...`
/// once read at 1x): why each is refused, or `None` when none was given.
fn window_options_misplaced(matches: &clap::ArgMatches) -> Option<String> {
    let sub = matches.subcommand_name()?;
    let given: Vec<&str> = WINDOW_ONLY
        .iter()
        .filter(|(id, _)| matches.value_source(id) == Some(ValueSource::CommandLine))
        .map(|&(_, flag)| flag)
        .collect();
    if given.is_empty() {
        return None;
    }
    let mut why = format!(
        "{} {} for the window only and would be ignored by `{sub}`",
        given.join(", "),
        if given.len() == 1 { "is" } else { "are" }
    );
    if given.contains(&"--dice-scale") && ["scan", "eval"].contains(&sub) {
        let typed = matches
            .get_raw("dice_scale")
            .and_then(|mut v| v.next())
            .map_or_else(|| "2".into(), |v| v.to_string_lossy());
        why.push_str(&format!(
            "; give `--dice-scale` after `{sub}` (`adjutant {sub} --dice-scale {typed} ...`)"
        ));
    }
    Some(why)
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    if let Some(why) = window_options_misplaced(&matches) {
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, why)
            .exit();
    }
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if cli.command.is_some() {
        quiet_on_closed_pipe();
    }
    match run(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("adjutant: {}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes ("reading x.bin: No such file or directory"),
/// each cause once: library errors already say their source.
fn error_chain(e: &anyhow::Error) -> String {
    let mut said = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !said.contains(&c) {
            said = format!("{said}: {c}");
        }
    }
    said
}

/// `adjutant rules t52 | head -3` must end quietly when `head` stops reading,
/// (subcommands only: the window keeps write errors as errors),
/// as other command-line tools do, instead of panicking in `println!`: the
/// default action of SIGPIPE (which Rust's runtime sets to ignore) ends the
/// process at the first write to the closed pipe.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread is started;
    // restoring a signal's default disposition has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn run(cli: &Cli) -> Result<ExitCode> {
    // The flags win over the environment; `paths` reads these later.
    // SAFETY: still single-threaded here (no window, no workers yet).
    if let Some(d) = &cli.data_dir {
        unsafe { std::env::set_var("ADJUTANT_DATA_DIR", d) };
    }
    if let Some(d) = &cli.config_dir {
        unsafe { std::env::set_var("ADJUTANT_CONFIG_DIR", d) };
    }
    match &cli.command {
        None => open_window(cli),
        Some(Cmd::Rules {
            game, export: true, ..
        }) => export_ruleset(game),
        Some(Cmd::Rules { game, query, .. }) => rules(game, &query.join(" ")),
        Some(Cmd::Check { files }) if files.is_empty() => check(),
        Some(Cmd::Check { files }) => check_files(files),
        Some(Cmd::Log { save }) => log(save),
        Some(Cmd::Play { script, json }) => play(script, *json),
        Some(Cmd::Scan {
            json,
            card_model,
            general,
            dice_model,
            dice_scale,
            images,
        }) => vision_cli::scan(
            images,
            *json,
            card_model.as_deref(),
            *general,
            dice_model.as_deref(),
            *dice_scale,
        ),
        Some(Cmd::Eval {
            json,
            card_model,
            only,
            held_out,
            fold,
            dice_scale,
            sets,
        }) => vision_cli::eval(
            sets,
            *json,
            card_model.as_deref(),
            &vision_cli::EvalFilter {
                only: only.as_deref(),
                held_out: *held_out,
                fold: fold.as_deref().map(vision_cli::Fold::parse).transpose()?,
            },
            *dice_scale,
        ),
        Some(Cmd::LearnDeck {
            dir,
            name,
            sarm_names,
        }) => vision_cli::learn_deck(dir, name.as_deref(), *sarm_names),
        Some(Cmd::FitCards {
            out,
            sets,
            deck,
            sarm_singles,
            condense,
            leave_out,
        }) => vision_cli::fit_cards(
            out,
            &vision_cli::CardFitSources {
                sets,
                decks: deck,
                sarm_singles,
                condense: *condense,
                leave_out: leave_out
                    .as_deref()
                    .map(vision_cli::Fold::parse)
                    .transpose()?,
            },
        ),
        Some(Cmd::FitDice {
            set,
            out,
            cards,
            seed,
            cnn_widths,
            r#final,
            check_final,
            check_select,
            synthetic,
            synthetic_style,
            candidate_jitter,
            extra_train,
            detector_scenes,
            detector_only,
        }) => vision_cli::fit_dice(
            set,
            out,
            cards,
            vision_cli::FitDiceFlags {
                seed: *seed,
                cnn_widths,
                final_from: r#final.as_deref(),
                check_final_from: check_final.as_deref(),
                check_select: *check_select,
                synthetic: *synthetic,
                synthetic_style: *synthetic_style,
                candidate_jitter: *candidate_jitter,
                extra_train,
                detector_scenes,
                detector_only: detector_only.as_deref(),
            },
        ),
    }
}

fn open_window(cli: &Cli) -> Result<ExitCode> {
    let mut state = app::AppState::new(None, None);
    state.dice_scale = cli.dice_scale;
    match &cli.replay {
        Some(dir) => {
            state.start_replay(dir.clone());
            // Asked for recorded frames: show them first.
            state.screen = app::Screen::Table;
        }
        None => {
            state.camera_index = cli.camera;
            state.start_camera();
        }
    }
    if cli.resume {
        state.resume_newest();
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

/// Says which house-rule files were not used, and what is used instead.
fn warn_rulesets(errors: &[adjutant::rules::ruleset::RulesetError]) {
    use adjutant::rules::ruleset::RulesetError;
    for e in errors {
        match e {
            RulesetError::NamesNoGame { .. } => eprintln!("warning: not read: {e}"),
            _ => eprintln!(
                "warning: the built-in ruleset is used instead of {}:\n  {}",
                e.file().display(),
                e.to_string().replace('\n', "\n  ")
            ),
        }
    }
}

/// Writes `game`'s built-in ruleset into the rulesets folder, for house
/// rules: the window and `check` read it from there (audit BK K7).
fn export_ruleset(game: &str) -> Result<ExitCode> {
    let game = game_id(game)?;
    let file = paths::ruleset_dir().join(format!("{}.ron", game.id()));
    if file.exists() {
        bail!(
            "{} is there already: edit it, or move it away to export the built-in ruleset afresh",
            file.display()
        );
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    }
    adjutant::files::write_atomic(&file, game.default_ruleset().as_bytes())
        .with_context(|| format!("cannot write {}", file.display()))?;
    println!(
        "Wrote {}: edit it for your house rules; `adjutant check` checks it, and the window reads it at start.",
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn rules(game: &str, query: &str) -> Result<ExitCode> {
    let game = game_id(game)?;
    let (lib, errors) = library();
    warn_rulesets(&errors);
    let rs = lib.get(game).context("this game's ruleset did not load")?;
    use adjutant::rules::lookup::{HitKind, lookup};
    let hits = lookup(rs, query);
    if hits.is_empty() {
        let list_all = format!(
            "run `adjutant rules {}` alone to list every entry",
            game.id()
        );
        println!(
            "{}",
            adjutant::rules::lookup::nothing_found(rs, query, &list_all)
        );
        return Ok(ExitCode::from(1));
    }
    for r in hits {
        // A rule and a profile may share an id ("cavalry"): say which.
        let kind = match r.kind {
            HitKind::Rule => "",
            HitKind::Upgrade => "upgrade ",
            HitKind::Ability => "ability ",
            HitKind::Profile => "profile ",
        };
        println!("== {} [{kind}{}]", r.title, r.id);
        println!("{}", r.text);
        if let Some(ruling) = &r.ruling {
            println!("Ruling: {ruling}");
        }
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

fn check() -> Result<ExitCode> {
    let (lib, errors) = library();
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
        // A file with several problems lists each on its own line.
        println!("BAD  {}", e.to_string().replace('\n', "\n     "));
        say_first_syntax_error_only(e);
    }
    if errors.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{} bad ruleset file(s)", errors.len());
        Ok(ExitCode::FAILURE)
    }
}

/// `check FILE...`: each file as it would be read as a house rule.
fn check_files(files: &[PathBuf]) -> Result<ExitCode> {
    let mut bad = 0;
    for file in files {
        match Library::check_file(file) {
            Ok(game) => println!(
                "ok   {} (for {}: put it in {} to play with it)",
                file.display(),
                game.id(),
                paths::ruleset_dir()
                    .join(format!("{}.ron", game.id()))
                    .display()
            ),
            Err(e) => {
                bad += 1;
                println!("BAD  {}", e.to_string().replace('\n', "\n     "));
                say_first_syntax_error_only(&e);
            }
        }
    }
    if bad == 0 {
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{bad} bad ruleset file(s)");
        Ok(ExitCode::FAILURE)
    }
}

/// The parser stops at the first syntax error: says that more may follow,
/// or the player takes one mended mistake for the last.
fn say_first_syntax_error_only(e: &adjutant::rules::RulesetError) {
    if matches!(e, adjutant::rules::RulesetError::Syntax { .. }) {
        println!("     (a file is read up to its first syntax error: mend it and check again)");
    }
}

fn log(path: &Path) -> Result<ExitCode> {
    // The log is replayed under the house rules: say which were not used.
    let (lib, errors) = library();
    warn_rulesets(&errors);
    let loaded = save::load(path, &lib)?;
    for e in &loaded.skipped {
        eprintln!("warning: skipped {e}");
    }
    match (&loaded.refused_setup, &loaded.cut_short) {
        // The refused setup is why nothing after it applies: said once,
        // with what to do (audit AH M5).
        (Some(why), _) => eprintln!(
            "warning: this game's setup is refused by the rulesets read now, from {} ({why}). \
             A game begun with house rules replays whole with those rulesets: give \
             --config-dir with the folder whose rulesets/ holds them.",
            paths::ruleset_dir().display()
        ),
        (None, Some(cut)) => eprintln!("warning: replayed in part: {cut}"),
        (None, None) => {}
    }
    if loaded.from != path {
        eprintln!("warning: read from backup {}", loaded.from.display());
    }
    let s = loaded.session.state();
    // Each rule's ruling once, after the log, in the order first applied:
    // beside every line it would repeat under each check of that rule.
    let mut rulings: Vec<(&str, &str)> = Vec::new();
    for l in &s.log {
        match &l.rule {
            Some(rule) => println!("[{}] {}  ({rule})", l.when(), l.text),
            None => println!("[{}] {}", l.when(), l.text),
        }
        if let (Some(rule), Some(ruling)) = (&l.rule, &l.ruling)
            && !rulings.iter().any(|(r, _)| r == rule)
        {
            rulings.push((rule, ruling));
        }
    }
    if !rulings.is_empty() {
        println!();
        println!("Rulings applied:");
        for (rule, ruling) in rulings {
            println!("  ({rule}) {ruling}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn play(path: &Path, json: bool) -> Result<ExitCode> {
    let (lib, errors) = library();
    warn_rulesets(&errors);
    let script = Script::load(path)?;
    let mut sink = std::io::sink();
    let mut stdout = std::io::stdout();
    let out: &mut dyn std::io::Write = if json { &mut sink } else { &mut stdout };
    let session = match script::play(&script, &lib, out) {
        Ok(s) => s,
        // Most errors say where in the file they are; the others get its name.
        Err(e) => {
            let said = e.to_string();
            let file = path.display().to_string();
            if said.starts_with(&file) {
                bail!("{said}")
            }
            bail!("{file}: {said}")
        }
    };
    if json {
        let report = StateReport::of_session(&session);
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjutant::vision::dice::cnn;

    /// The default `--cnn-widths` shown in the help is typed as it is
    /// shown, and is the shipped model's.
    #[test]
    fn the_default_cnn_widths_are_the_shipped_ones() {
        assert_eq!(CNN_WIDTHS, format!("{},{}", cnn::C1, cnn::C2));
    }
}
