//! Movement: the allowance in inches from the cards played.

use super::{
    cards_left, cards_played, gunmen_of, is_suit, num, one_card, pick_gunman, play_cards, shooting,
    value, yes_no,
};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Ctx, Flow};
use crate::rules::state::SideId;
use crate::table::{Card, Suit};

/// Inches a set of movement cards gives: Clubs at full value when
/// `clubs_full`, every other card (and Clubs otherwise) divided by
/// `divisor`; a Joker adds nothing.
pub fn allowance(cards: &[Card], values: impl Fn(Card) -> Option<i32>, divisor: i32) -> f64 {
    let divisor = f64::from(divisor.max(1));
    cards
        .iter()
        .map(|&c| {
            let v = f64::from(values(c).unwrap_or(0));
            if is_suit(c, &[Suit::Clubs]) {
                v
            } else {
                v / divisor
            }
        })
        .sum()
}

/// Inches as players say them: "7", "7.5".
pub fn inches(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// A gunman of `side` moves; opponents may then fire on overwatch.
pub fn move_gunman(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let ids = gunmen_of(ctx, side);
    let Some(g) = pick_gunman(ctx, "Which gunman moves?", &ids, "movement")? else {
        return Ok(());
    };
    let name = ctx.state().unit_name(g);
    let player = ctx.state().side_name(side);
    let divisor = num(ctx, "non_club_move_divisor");
    let first_moves = ctx.state().counter(shooting::SHOTS_COUNTER) == 0;
    let (rule, cards) = if first_moves {
        // What is left of the hand (the initiative bid has left it).
        let most = cards_left(ctx, side).max(1);
        let n = ctx.number(
            format!("How many cards does {player} spend moving {name}? (no shot fired yet: any cards, non-Clubs count half)"),
            1,
            most,
            Some("first-moves"),
        )?;
        let cards = cards_played(
            ctx,
            side,
            n as u32,
            &format!("Show the cards {name} moves with"),
            "first-moves",
        )?;
        ("first-moves", cards)
    } else if yes_no(ctx, format!("Does {player} hold a Club?"), "movement")? {
        let card = one_card(
            ctx,
            side,
            &format!("{player}: play a Club to move {name}"),
            "movement",
            |c| is_suit(c, &[Suit::Clubs]),
            "while you hold a Club, combat moves use Clubs",
        )?;
        ("movement", vec![card])
    } else {
        let most = i64::from(num(ctx, "no_clubs_max_cards").max(1))
            .min(cards_left(ctx, side))
            .max(1);
        let n = ctx.number(
            format!("No Clubs: how many cards (up to {most}) does {player} play, at half value?"),
            1,
            most,
            Some("movement"),
        )?;
        // The player has just said the hand holds no Club.
        let cards = play_cards(
            ctx,
            side,
            n as u32,
            &format!("Show the cards {name} moves with"),
            "movement",
            &|c| !is_suit(c, &[Suit::Clubs]),
            &format!("{player} said the hand holds no Club (Undo that answer if it does)"),
        )?;
        ("movement", cards)
    };
    if cards.len() == 1 {
        ctx.apply(Effect::SetCounter {
            key: shooting::single_card_move_key(side),
            value: 1,
        });
    }
    let dist = allowance(&cards, |c| value(ctx, c), divisor);
    let shown: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
    ctx.resolved(
        rule,
        format!(
            "{name} may move up to {} in ({}); figures within {} card-widths of him may move with him as a group",
            inches(dist),
            shown.join(" "),
            num(ctx, "group_move_card_widths")
        ),
    );
    shooting::overwatch(ctx, side, g, shooting::Trigger::Moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(codes: &str) -> Vec<Card> {
        codes
            .split_whitespace()
            .map(|c| c.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    fn face(c: Card) -> Option<i32> {
        c.rank().map(|r| match r.number() {
            Some(n) => i32::from(n),
            None => 10,
        })
    }

    #[test]
    fn clubs_count_full_and_other_cards_half() {
        assert_eq!(allowance(&cards("8c"), face, 2), 8.0);
        assert_eq!(allowance(&cards("8c 5h"), face, 2), 10.5);
        assert_eq!(allowance(&cards("7d 4s"), face, 2), 5.5);
        assert_eq!(allowance(&cards("XR 6c"), face, 2), 6.0);
        assert_eq!(inches(10.5), "10.5");
        assert_eq!(inches(8.0), "8");
    }
}
