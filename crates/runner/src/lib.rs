//! The agent runner: drives a run to its end with a model that speaks the OpenAI chat-completions
//! protocol, through the same [`switchyard_runtime::Runtime`] and file tools as every other door.
