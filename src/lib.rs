//! Adjutant: a desktop companion for tabletop wargames played with ordinary
//! playing cards and d6. Three layers over shared table types:
//!
//! - [`table`]: cards, packs, decks, dice and card orderings (shared by all).
//! - [`vision`]: frames in, detections out; no game knowledge.
//! - [`rules`]: games, state, events, procedures, saves; no UI, no camera.
//! - [`app`]: the egui window and the frame-source loop, thin over the others.
//!
//! `vision` and `rules` are usable headless: the CLI and tests drive them.

pub mod app;
pub mod files;
pub mod paths;
pub mod rules;
pub mod table;
pub mod vision;
