//! Setup forms for the games whose sides are typed as a name, a pack back
//! colour and a line of units: Gunfight Gang (`Name:weapon` gunmen),
//! Napoleonic Card Combat (`Name:arm:men` units), Card-Activation Skirmish
//! (`Name:models`) and Gentlemen of War (`Name:profile[:stats]`). Checked as
//! typed.

use crate::rules::Ruleset;
use crate::rules::card_activation::{self, SideSetup};
use crate::rules::gentlemen::{self, BandSetup};
use crate::rules::gunfight::{self, GangSetup};
use crate::rules::napoleonic::{self, ArmySetup};
use crate::table::BackColour;

/// One side as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideForm {
    /// Player name.
    pub name: String,
    /// Back colour of the player's pack.
    pub back: BackColour,
    /// Units, e.g. `Kid Doc:rifle Ike Billy` or `Guards:inf:12 Hussars:cav:6`.
    pub units: String,
}

impl SideForm {
    fn new(name: &str, back: BackColour, units: &str) -> SideForm {
        SideForm {
            name: name.into(),
            back,
            units: units.into(),
        }
    }
}

/// Every side's units that parse, with every problem of the others (each
/// named by its side), and the "has no units." line the setup check would
/// add for a side whose units all failed to parse (said once is enough).
fn parse_every_unit<T, U>(
    sides: &[SideForm],
    parse: impl Fn(&str) -> (Vec<U>, Vec<String>),
    build: impl Fn(String, &SideForm, Vec<U>) -> T,
) -> (Vec<T>, Vec<String>, Vec<String>) {
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    let mut unparsed = Vec::new();
    for side in sides {
        let name = side.name.trim().to_string();
        let (units, problems) = parse(&side.units);
        if !problems.is_empty() {
            unparsed.push(format!("{name} has no units."));
        }
        errors.extend(problems.into_iter().map(|p| format!("{name}: {p}.")));
        parsed.push(build(name, side, units));
    }
    (parsed, errors, unparsed)
}

/// `setup` if neither parsing nor its check found a problem; else every
/// problem, the check's "has no units." for a side that failed to parse
/// left out.
fn finish<S>(
    setup: S,
    mut errors: Vec<String>,
    checked: Result<(), Vec<String>>,
    unparsed: &[String],
) -> Result<S, Vec<String>> {
    if let Err(more) = checked {
        errors.extend(more.into_iter().filter(|e| !unparsed.contains(e)));
    }
    if errors.is_empty() {
        Ok(setup)
    } else {
        Err(errors)
    }
}

/// What the players typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GunfightForm {
    /// The gangs.
    pub gangs: Vec<SideForm>,
    /// Civilians are on the table.
    pub civilians: bool,
}

/// Most gangs the form offers (the game has no limit; the table has).
pub const MAX_GANGS: usize = 6;

impl Default for GunfightForm {
    fn default() -> Self {
        GunfightForm {
            gangs: vec![
                SideForm::new("Red", BackColour::Red, "Kid Doc:rifle Ike Billy"),
                SideForm::new(
                    "Blue",
                    BackColour::Blue,
                    "Wyatt:rifle Virgil Morgan Holliday",
                ),
            ],
            civilians: false,
        }
    }
}

impl GunfightForm {
    /// The setup the form describes, or every problem with it.
    pub fn setup(&self, ruleset: &Ruleset) -> Result<gunfight::GameSetup, Vec<String>> {
        let (gangs, errors, unparsed) = parse_every_unit(
            &self.gangs,
            gunfight::parse_gunmen_all,
            |name, g, gunmen| GangSetup {
                name,
                back: g.back,
                gunmen,
            },
        );
        // A game begun now asks in the newest order.
        let setup = gunfight::GameSetup {
            gangs,
            civilians: self.civilians,
            question_order: gunfight::QUESTION_ORDER,
        };
        // A gang with a gunman that did not parse is short by him: its count
        // would only repeat that problem.
        let size = ruleset.number("gang_size").max(1);
        let mut repeated = unparsed.clone();
        for g in &setup.gangs {
            if unparsed.contains(&format!("{} has no units.", g.name)) {
                repeated.push(gunfight::gang_size_problem(g, size));
            }
        }
        let checked = gunfight::check_setup(&setup, ruleset);
        finish(setup, errors, checked, &repeated)
    }

    /// Adds a gang with a free name and the next back colour.
    pub fn add_gang(&mut self) {
        if self.gangs.len() >= MAX_GANGS {
            return;
        }
        let n = self.gangs.len() + 1;
        self.gangs
            .push(SideForm::new(&format!("Gang {n}"), BackColour::Other, ""));
    }
}

/// A Napoleonic setup as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NapoleonicForm {
    /// The two armies.
    pub armies: Vec<SideForm>,
    /// Objective names separated by commas.
    pub objectives: String,
}

impl Default for NapoleonicForm {
    fn default() -> Self {
        NapoleonicForm {
            armies: vec![
                SideForm::new(
                    "French",
                    BackColour::Blue,
                    "Line:inf:12 Hussars:cav:6 Battery:art:3",
                ),
                SideForm::new(
                    "British",
                    BackColour::Red,
                    "Foot:inf:12 Dragoons:cav:6 Guns:art:3",
                ),
            ],
            objectives: "Hill, Farm, Bridge, Village".into(),
        }
    }
}

impl NapoleonicForm {
    /// The setup the form describes, or every problem with it.
    pub fn setup(&self, ruleset: &Ruleset) -> Result<napoleonic::GameSetup, Vec<String>> {
        let (armies, errors, unparsed) = parse_every_unit(
            &self.armies,
            napoleonic::parse_units_all,
            |name, a, units| ArmySetup {
                name,
                back: a.back,
                units,
            },
        );
        let objectives = self
            .objectives
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .map(String::from)
            .collect();
        let setup = napoleonic::GameSetup { armies, objectives };
        let checked = napoleonic::check_setup(&setup, ruleset);
        finish(setup, errors, checked, &unparsed)
    }
}

/// A Card-Activation setup as typed (no pack backs: one shared deck).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardActivationForm {
    /// The two sides.
    pub sides: Vec<SideForm>,
}

impl Default for CardActivationForm {
    fn default() -> Self {
        CardActivationForm {
            sides: vec![
                SideForm::new(
                    "Red",
                    BackColour::Other,
                    "Rifles:5 Scouts:3 Captain:commander",
                ),
                SideForm::new(
                    "Blue",
                    BackColour::Other,
                    "Guards:5 Militia:5 Major:commander",
                ),
            ],
        }
    }
}

impl CardActivationForm {
    /// The setup the form describes, or every problem with it.
    pub fn setup(&self, ruleset: &Ruleset) -> Result<card_activation::GameSetup, Vec<String>> {
        // Every problem at once: the units that parse are checked too, so a
        // bad token does not hide a second commander or an empty unit.
        let (sides, errors, unparsed) = parse_every_unit(
            &self.sides,
            card_activation::parse_units_all,
            |name, _, units| SideSetup { name, units },
        );
        // A game begun now asks in the newest order.
        let setup = card_activation::GameSetup {
            sides,
            question_order: card_activation::QUESTION_ORDER,
        };
        let checked = card_activation::check_setup(&setup, ruleset);
        finish(setup, errors, checked, &unparsed)
    }
}

/// A Gentlemen of War setup as typed: two bands of `Name:profile` units,
/// each player with a deck of its own back colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GentlemenForm {
    /// The two bands.
    pub bands: Vec<SideForm>,
}

impl Default for GentlemenForm {
    fn default() -> Self {
        GentlemenForm {
            bands: vec![
                SideForm::new(
                    "Red",
                    BackColour::Red,
                    "Sharpe:rifleman Harper:grenadier Hogan:officer",
                ),
                SideForm::new(
                    "Blue",
                    BackColour::Blue,
                    "Jean:line Pierre:line Luc:officer Marc:dragoon",
                ),
            ],
        }
    }
}

impl GentlemenForm {
    /// The setup the form describes, or every problem with it.
    pub fn setup(&self, ruleset: &Ruleset) -> Result<gentlemen::GameSetup, Vec<String>> {
        let (bands, errors, unparsed) = parse_every_unit(
            &self.bands,
            |text| gentlemen::parse_units_all(text, ruleset),
            |name, b, units| BandSetup {
                name,
                back: b.back,
                units,
            },
        );
        // A game begun now asks in the newest order.
        let setup = gentlemen::GameSetup {
            bands,
            question_order: gentlemen::QUESTION_ORDER,
        };
        let checked = gentlemen::check_setup(&setup, ruleset);
        finish(setup, errors, checked, &unparsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{GameId, Library};

    fn ruleset(game: GameId) -> Ruleset {
        let (lib, _) = Library::builtin();
        let rs = lib.get(game).cloned();
        rs.unwrap_or_else(|| panic!("no {game:?} ruleset"))
    }

    fn gunfight() -> Ruleset {
        ruleset(GameId::Gunfight)
    }

    #[test]
    fn the_default_form_is_a_valid_two_gang_game() {
        let setup = GunfightForm::default().setup(&gunfight());
        let setup = setup.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(setup.gangs.len(), 2);
        assert_eq!(setup.gangs[0].gunmen[1].name, "Doc");
    }

    #[test]
    fn every_side_needs_a_name_of_its_own() {
        let mut form = GunfightForm::default();
        form.gangs[0].name = "  ".into();
        let errs = form.setup(&gunfight()).err().unwrap_or_default();
        assert_eq!(errs, vec!["Player 1: type a name.".to_string()]);
        form.gangs[0].name = "blue".into();
        let errs = form.setup(&gunfight()).err().unwrap_or_default();
        assert_eq!(
            errs,
            vec!["Two players are called Blue: give each a name of their own.".to_string()]
        );
        form.gangs[0].name = "Red".into();
        assert!(form.setup(&gunfight()).is_ok());
    }

    #[test]
    fn a_card_activation_form_shows_every_problem_at_once() {
        let rs = ruleset(GameId::CardActivation);
        let mut form = CardActivationForm::default();
        form.sides[0].units = "Rifles:x Bows:a+b Zero:0 Captain:commander Major:commander".into();
        let errs = form.setup(&rs).err().unwrap_or_default();
        assert_eq!(errs.len(), 4, "{errs:?}");
        assert!(errs[0].starts_with("Red: `a+b` (for Bows)"), "{errs:?}");
        // A word names a profile: one the ruleset lacks is said with those it has.
        assert!(
            errs.iter().any(|e| e.contains(
                "Rifles has profile `x`, which the ruleset does not define (it has unit, field-commander)"
            )),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.contains("2 Field Commanders")),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.contains("Zero has no models")),
            "{errs:?}"
        );
    }

    /// A house rule's own profile is fielded by its id (audit X1).
    #[test]
    fn a_card_activation_unit_may_take_a_house_profile() {
        let mut rs = ruleset(GameId::CardActivation);
        let mut archers = rs.profiles[0].clone();
        archers.id = "archers".into();
        archers.stats.insert("weapon_range".into(), 30);
        rs.profiles.push(archers);
        let mut form = CardActivationForm::default();
        form.sides[0].units = "Rifles:4 Bows:archers:3 Captain:commander".into();
        let setup = form.setup(&rs).unwrap_or_else(|e| panic!("{e:?}"));
        let bows = &setup.sides[0].units[1];
        assert_eq!((bows.profile.as_str(), bows.models), ("archers", Some(3)));
    }

    #[test]
    fn napoleonic_objectives_need_names_of_their_own() {
        let rs = ruleset(GameId::Napoleonic);
        let mut form = NapoleonicForm::default();
        assert!(form.setup(&rs).is_ok(), "{:?}", form.setup(&rs).err());
        form.objectives = "Hill, Farm, hill, Village".into();
        let errs = form.setup(&rs).err().unwrap_or_default();
        assert_eq!(
            errs,
            vec!["Two objectives are called hill: give each a name of its own.".to_string()]
        );
    }

    #[test]
    fn problems_name_the_gang() {
        let mut form = GunfightForm::default();
        form.gangs[0].units = "Kid Doc:cannon Ike Billy".into();
        form.add_gang();
        let errs = form.setup(&gunfight()).err().unwrap_or_default();
        assert!(
            errs.iter()
                .any(|e| e.starts_with("Red:") && e.contains("cannon")),
            "{errs:?}"
        );
        form.gangs[0].units = "Kid Doc Ike Billy".into();
        let errs = form.setup(&gunfight()).err().unwrap_or_default();
        assert!(
            errs.iter().any(|e| e.contains("Gang 3 has 0 gunmen")),
            "{errs:?}"
        );
        // Every problem at once: a bad weapon in one gang and a short gang
        // beside it; the gang with the bad weapon is not also "short".
        form.gangs[0].units = "Kid Doc:shotgun Ike Billy".into();
        form.gangs[1].units = "Wyatt Virgil Morgan".into();
        let errs = form.setup(&gunfight()).err().unwrap_or_default();
        assert!(errs.iter().any(|e| e.contains("shotgun")), "{errs:?}");
        assert!(
            errs.iter().any(|e| e.contains("Blue has 3 gunmen")),
            "{errs:?}"
        );
        assert!(!errs.iter().any(|e| e.contains("Red has")), "{errs:?}");
    }

    #[test]
    fn the_default_gentlemen_form_is_valid_and_problems_name_the_band() {
        let rs = ruleset(GameId::GentlemenOfWar);
        let mut form = GentlemenForm::default();
        let setup = form.setup(&rs).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(setup.bands[1].units[3].profile, "dragoon");
        form.bands[1].units = "Jean:line Pierre:pikeman".into();
        let errs = form.setup(&rs).err().unwrap_or_default();
        assert!(
            errs.iter()
                .any(|e| e.starts_with("Blue:") && e.contains("pikeman")),
            "{errs:?}"
        );
        form.bands[1].units = "Jean:line:h2x".into();
        let errs = form.setup(&rs).err().unwrap_or_default();
        assert!(errs.iter().any(|e| e.contains("stat letter")), "{errs:?}");
    }

    /// Every problem of a Napoleonic or Gentlemen form at once: each bad
    /// unit, and what the setup check finds in the rest.
    #[test]
    fn every_problem_of_a_form_is_listed_at_once() {
        let mut form = NapoleonicForm::default();
        form.armies[0].units = "Line:inf:0 Hussars:cav Battery:tank:3 Bob:gen:1".into();
        form.objectives = "Hill, Farm".into();
        let errs = form
            .setup(&ruleset(GameId::Napoleonic))
            .err()
            .unwrap_or_default();
        let said = errs.join("\n");
        for part in [
            "`Hussars:cav` is not Name:arm:men",
            "`tank` (for Battery)",
            "Line has no men",
            "Bob: generals and aides-de-camp are not entered as units",
        ] {
            assert!(said.contains(part), "{part} missing from {said}");
        }
        let mut form = GentlemenForm::default();
        form.bands[1].units = "Jean:nobody Pierre:line:z1".into();
        let errs = form
            .setup(&ruleset(GameId::GentlemenOfWar))
            .err()
            .unwrap_or_default();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(!errs.iter().any(|e| e.contains("has no units")), "{errs:?}");
    }
}
