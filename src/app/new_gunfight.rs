//! Setting up a Gunfight Gang game: each player's name, pack back colour and
//! four gunmen typed as `Name:weapon`. Checked as typed.

use crate::rules::Ruleset;
use crate::rules::gunfight::{GameSetup, GangSetup, check_setup, parse_gunmen};
use crate::table::BackColour;

/// One gang as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GangForm {
    /// Player name.
    pub name: String,
    /// Back colour of the player's pack.
    pub back: BackColour,
    /// Gunmen, e.g. `Kid Doc:rifle Ike Billy`.
    pub gunmen: String,
}

/// What the players typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GunfightForm {
    /// The gangs.
    pub gangs: Vec<GangForm>,
    /// Civilians are on the table.
    pub civilians: bool,
}

/// Most gangs the form offers (the game has no limit; the table has).
pub const MAX_GANGS: usize = 6;

impl Default for GunfightForm {
    fn default() -> Self {
        GunfightForm {
            gangs: vec![
                GangForm {
                    name: "Red".into(),
                    back: BackColour::Red,
                    gunmen: "Kid Doc:rifle Ike Billy".into(),
                },
                GangForm {
                    name: "Blue".into(),
                    back: BackColour::Blue,
                    gunmen: "Wyatt:rifle Virgil Morgan Holliday".into(),
                },
            ],
            civilians: false,
        }
    }
}

impl GunfightForm {
    /// The setup the form describes, or every problem with it.
    pub fn setup(&self, ruleset: &Ruleset) -> Result<GameSetup, Vec<String>> {
        let mut errors = Vec::new();
        let mut gangs = Vec::new();
        for g in &self.gangs {
            let name = g.name.trim().to_string();
            match parse_gunmen(&g.gunmen) {
                Ok(gunmen) => gangs.push(GangSetup {
                    name,
                    back: g.back,
                    gunmen,
                }),
                Err(e) => errors.push(format!("{name}: {e}.")),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let setup = GameSetup {
            gangs,
            civilians: self.civilians,
        };
        check_setup(&setup, ruleset)?;
        Ok(setup)
    }

    /// Adds a gang with a free name and the next back colour.
    pub fn add_gang(&mut self) {
        if self.gangs.len() >= MAX_GANGS {
            return;
        }
        let n = self.gangs.len() + 1;
        self.gangs.push(GangForm {
            name: format!("Gang {n}"),
            back: BackColour::Other,
            gunmen: String::new(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{GameId, Library};

    fn gunfight() -> Ruleset {
        let (lib, _) = Library::builtin();
        let rs = lib.get(GameId::Gunfight).cloned();
        rs.unwrap_or_else(|| panic!("no gunfight ruleset"))
    }

    #[test]
    fn the_default_form_is_a_valid_two_gang_game() {
        let setup = GunfightForm::default().setup(&gunfight());
        let setup = setup.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(setup.gangs.len(), 2);
        assert_eq!(setup.gangs[0].gunmen[1].name, "Doc");
    }

    #[test]
    fn problems_name_the_gang() {
        let mut form = GunfightForm::default();
        form.gangs[0].gunmen = "Kid Doc:cannon Ike Billy".into();
        form.add_gang();
        let errs = form.setup(&gunfight()).err().unwrap_or_default();
        assert!(
            errs.iter()
                .any(|e| e.starts_with("Red:") && e.contains("cannon")),
            "{errs:?}"
        );
        form.gangs[0].gunmen = "Kid Doc Ike Billy".into();
        let errs = form.setup(&gunfight()).err().unwrap_or_default();
        assert!(
            errs.iter().any(|e| e.contains("Gang 3 has 0 gunmen")),
            "{errs:?}"
        );
    }
}
