//! Setting up a T52 game: each player's regiment typed as card codes (or
//! taken from the cards the camera sees), terrain and objective cards. The
//! form is checked as it is typed, and every problem is shown in a sentence.

use crate::rules::Ruleset;
use crate::rules::t52::{GameSetup, PlayerSetup, TerrainKind, TerrainSetup, check_setup};
use crate::table::Card;

/// What the players typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGameForm {
    /// First player's name.
    pub first_name: String,
    /// First player's units, e.g. `XR As Ad 8c+7s 4h+5c+Qd:mob 3s`.
    pub first_units: String,
    /// Second player's name.
    pub second_name: String,
    /// Second player's units.
    pub second_units: String,
    /// Terrain pieces by kind: `dangerous dangerous cover cover defensible`.
    pub terrain: String,
    /// Objective marker cards: `Kh Ks Jd`.
    pub objectives: String,
}

impl Default for NewGameForm {
    fn default() -> Self {
        NewGameForm {
            // Two small regiments that make a game at once, as the other
            // games' forms do (audit Y4: an empty form left the second
            // player to find legal cards by trial and error); the camera
            // or typing replaces them.
            first_name: "Red".into(),
            first_units: "XR As 8c+7s:mean 6s+9c".into(),
            second_name: "Blue".into(),
            second_units: "XB Ac Tc+3s 4d+5c+Qc".into(),
            // The source's typical table: each player places a dangerous
            // piece, then a cover, then one defensible piece in the centre.
            terrain: "dangerous dangerous cover cover defensible".into(),
            // ... and its typical objectives: a Jack in the centre and four
            // Kings (a game without them can only end by sudden death).
            objectives: "Jd Kh Ks Kd Kc".into(),
        }
    }
}

impl NewGameForm {
    /// The setup the form describes, or every problem with it.
    pub fn setup(&self, ruleset: &Ruleset) -> Result<GameSetup, Vec<String>> {
        let mut errors = Vec::new();
        let mut players = Vec::new();
        for (name, units) in [
            (&self.first_name, &self.first_units),
            (&self.second_name, &self.second_units),
        ] {
            let name = name.trim().to_string();
            if units.trim().is_empty() {
                errors.push(format!("{name}: lay out or type the regiment's cards."));
                continue;
            }
            let (units, es) = crate::rules::t52::parse_units_in_part(units);
            errors.extend(es.into_iter().map(|e| format!("{name}: {e}")));
            players.push(PlayerSetup { name, units });
        }
        let mut terrain = Vec::new();
        for word in self.terrain.split_whitespace() {
            let kind = match word.to_lowercase().as_str() {
                "cover" => TerrainKind::Cover,
                "dangerous" => TerrainKind::Dangerous,
                "defensible" => TerrainKind::Defensible,
                _ => {
                    errors.push(format!(
                        "Terrain `{word}` is not a kind (cover, dangerous or defensible)."
                    ));
                    continue;
                }
            };
            terrain.push(TerrainSetup { kind, name: None });
        }
        let mut objectives = Vec::new();
        for code in self.objectives.split_whitespace() {
            match code.parse::<Card>() {
                Ok(c) => objectives.push(c),
                Err(e) => errors.push(format!("Objectives: {e}")),
            }
        }
        // A game begun now asks in the newest order.
        let setup = GameSetup {
            players,
            terrain,
            objectives,
            question_order: crate::rules::t52::QUESTION_ORDER,
        };
        if !errors.is_empty() {
            // What did parse is checked too (each regiment laid out so far,
            // the objectives, cards used twice), so a player sees every
            // problem at once, not the next only once these are mended.
            let (_, more) = crate::rules::t52::setup_problems(&setup, ruleset, false);
            errors.extend(more);
            return Err(errors);
        }
        check_setup(&setup, ruleset)?;
        Ok(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{GameId, Library};

    fn t52() -> Ruleset {
        let (lib, _) = Library::builtin();
        lib.get(GameId::T52)
            .cloned()
            .unwrap_or_else(|| panic!("no t52"))
    }

    #[test]
    fn the_default_form_is_a_game() {
        let setup = NewGameForm::default().setup(&t52());
        let setup = setup.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(setup.players.len(), 2);
    }

    /// Audit BK K2: a terrain word that is no kind does not hide the
    /// objectives' problems, nor a regiment's.
    #[test]
    fn every_problem_of_the_form_is_said_at_once() {
        let form = NewGameForm {
            first_units: "XR As 8c+7s Qd".into(),
            terrain: "forest hill cover".into(),
            objectives: "Jd Kh Qs 5h".into(),
            ..Default::default()
        };
        let errors = form.setup(&t52()).err().unwrap_or_default();
        let said = |what: &str| errors.iter().any(|e| e.contains(what));
        assert!(said("Terrain `forest`"), "{errors:?}");
        assert!(said("Terrain `hill`"), "{errors:?}");
        assert!(said("Objective Qs is not a King or a Jack"), "{errors:?}");
        assert!(said("Objective 5h is not a King or a Jack"), "{errors:?}");
        assert!(said("Qd"), "{errors:?}");
        assert!(!said("played by two players"), "{errors:?}");
    }

    #[test]
    fn a_complete_form_gives_a_setup() {
        let form = NewGameForm {
            first_units: "XR As 8c+7s 6s+9c".into(),
            second_units: "XB Ac Tc+3s 4d+5c+Qc".into(),
            objectives: "Ks Jh".into(),
            ..Default::default()
        };
        let setup = form.setup(&t52()).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(setup.players.len(), 2);
        assert_eq!(setup.terrain.len(), 5);
        assert_eq!(setup.objectives.len(), 2);
    }

    #[test]
    fn a_card_in_both_regiments_or_twice_an_objective_is_shown() {
        let form = NewGameForm {
            first_units: "XR As 8c+7s".into(),
            second_units: "XB Ac 8c+7c".into(),
            objectives: "Kh Kh".into(),
            ..Default::default()
        };
        let errs = form.setup(&t52()).err().unwrap_or_default();
        assert!(
            errs.iter()
                .any(|e| e.starts_with("8c is used 2 times") && e.contains("one deck")),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.starts_with("Kh is used 2 times")),
            "{errs:?}"
        );
        // A player not named yet is still told apart.
        let unnamed = NewGameForm {
            second_name: String::new(),
            ..form
        };
        let errs = unnamed.setup(&t52()).err().unwrap_or_default();
        assert!(
            errs.iter()
                .any(|e| e.contains("(Red's regiment, player 2's regiment)")),
            "{errs:?}"
        );
    }

    #[test]
    fn problems_are_sentences_naming_the_player() {
        let form = NewGameForm {
            first_units: "XR As 8c+7s 8s+9c 8h+3c".into(),
            second_units: String::new(),
            terrain: "cover lava".into(),
            objectives: "Kz".into(),
            ..Default::default()
        };
        let errs = form.setup(&t52()).err().unwrap_or_default();
        assert!(errs.iter().any(|e| e.starts_with("Blue:")), "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("lava")), "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("Kz")), "{errs:?}");
    }

    #[test]
    fn a_regiment_is_checked_before_the_other_side_is_filled_in() {
        let form = NewGameForm {
            first_units: "Ks 2c 8d Kh Th+7s".into(),
            second_units: String::new(),
            ..Default::default()
        };
        let errs = form.setup(&t52()).err().unwrap_or_default();
        assert!(
            errs.iter()
                .any(|e| e.starts_with("Red: Ks marks an objective")),
            "{errs:?}"
        );
        assert!(
            errs.iter()
                .any(|e| e.starts_with("Red: A regiment has exactly 1 Toff")),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.starts_with("Blue: lay out")),
            "{errs:?}"
        );
    }

    #[test]
    fn a_toff_given_equipment_is_not_also_said_to_be_missing() {
        let form = NewGameForm {
            first_units: "XR+5h Th 8d+7s As".into(),
            second_units: "XB Ac Tc+3s".into(),
            ..Default::default()
        };
        let errs = form.setup(&t52()).err().unwrap_or_default();
        assert!(
            errs.iter()
                .any(|e| e.contains("Toff XR takes no equipment card")),
            "{errs:?}"
        );
        assert!(
            !errs.iter().any(|e| e.contains("exactly 1 Toff")),
            "{errs:?}"
        );
    }
}
