//! Engine tests: one module per concern, all driven through the public functions.

mod evidence;
mod pending;
mod reports;
mod rules;
mod state_machine;
mod table_walk;
mod why;
