//! The models a runner may use: one default and the named ones of `[models.<name>]`. A step's
//! `model` names one of them; every name a workflow uses is checked before the first request.

use std::collections::BTreeMap;

use switchyard_core::suggest;
use switchyard_llm::{Endpoint, Usage};

use crate::error::Error;

/// Prices of a model, in US dollars per token, for cost estimates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub prompt_usd_per_token: f64,
    pub completion_usd_per_token: f64,
}

impl Price {
    /// What a request with `usage` cost.
    pub fn cost(&self, usage: &Usage) -> f64 {
        // Token counts stay far below 2^53, where u64 to f64 would round.
        usage.prompt_tokens as f64 * self.prompt_usd_per_token
            + usage.completion_tokens as f64 * self.completion_usd_per_token
    }
}

/// One model: where to send requests, what to call it there, and its parameters.
#[derive(Debug, Clone)]
pub struct ModelSpec {
    /// The id the server knows the model by (the request's `model`).
    pub model_id: String,
    pub endpoint: Endpoint,
    pub temperature: Option<f64>,
    /// The most tokens one answer may take (the request's `max_tokens`).
    pub max_tokens: Option<u32>,
    /// How many tokens the model reads at most; a carried-over conversation is trimmed to fit.
    pub context_window_tokens: Option<u64>,
    pub price: Option<Price>,
    /// Ask for streamed answers (servers and gateways that only stream); a server that refuses
    /// an unstreamed request is streamed to anyway, once it has said so.
    pub stream: bool,
    /// Whether the reasoning a server sent goes back with the conversation: always (`Some(true)`),
    /// never (`Some(false)`), or until the server refuses it (`None`, the default).
    pub send_reasoning: Option<bool>,
}

/// The models of a runner: the default, used by steps that name none, and the named ones.
#[derive(Debug, Clone)]
pub struct Models {
    /// The name the default model is shown by (a `[models.<name>]` name, or its id).
    pub default_name: String,
    pub default: ModelSpec,
    pub named: BTreeMap<String, ModelSpec>,
}

impl Models {
    /// One model for every step.
    pub fn single(name: impl Into<String>, spec: ModelSpec) -> Self {
        Self { default_name: name.into(), default: spec, named: BTreeMap::new() }
    }

    /// The model a step works with: its `model` by name, or the default. A runner given one
    /// model and no named ones works every step with it: a workflow's model names (the built-in
    /// `dev-cycle` names two) mean something only once the configuration names models.
    pub(crate) fn for_step(&self, model: Option<&str>) -> Result<(&str, &ModelSpec), Error> {
        match model {
            None => Ok((self.default_name.as_str(), &self.default)),
            Some(_) if self.named.is_empty() => Ok((self.default_name.as_str(), &self.default)),
            Some(name) if name == self.default_name => Ok((self.default_name.as_str(), &self.default)),
            Some(name) => self
                .named
                .get_key_value(name)
                .map(|(name, spec)| (name.as_str(), spec))
                .ok_or_else(|| self.unknown(name, None)),
        }
    }

    /// Checks every model a workflow's steps name, before anything is sent.
    pub(crate) fn check<'a>(&self, steps: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Result<(), Error> {
        for (step, model) in steps {
            if let Some(model) = model {
                self.for_step(Some(model)).map_err(|_| self.unknown(model, Some(step)))?;
            }
        }
        Ok(())
    }

    fn unknown(&self, name: &str, step: Option<&str>) -> Error {
        let known: Vec<String> = std::iter::once(self.default_name.clone()).chain(self.named.keys().cloned()).collect();
        let did_you_mean = suggest::closest(name, known.iter().map(String::as_str)).map(str::to_owned);
        Error::UnknownModel { model: name.to_owned(), step: step.map(str::to_owned), known, did_you_mean }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn spec(id: &str) -> ModelSpec {
        ModelSpec {
            model_id: id.to_owned(),
            endpoint: Endpoint {
                base_url: "http://127.0.0.1:1/v1".to_owned(),
                api_key: None,
                timeout: Duration::from_secs(1),
            },
            temperature: None,
            max_tokens: None,
            context_window_tokens: None,
            price: None,
            stream: false,
            send_reasoning: None,
        }
    }

    #[test]
    fn a_step_naming_an_unknown_model_is_refused_with_the_closest_name() {
        let mut models = Models::single("default", spec("m0"));
        assert!(models.check([("review", Some("anything"))]).is_ok(), "one model works every step");
        models.named.insert("reviewer".to_owned(), spec("m1"));
        assert!(models.check([("plan", None), ("review", Some("reviewer"))]).is_ok());
        match models.check([("review", Some("reveiwer"))]) {
            Err(Error::UnknownModel { model, step, did_you_mean, .. }) => {
                assert_eq!((model.as_str(), step.as_deref()), ("reveiwer", Some("review")));
                assert_eq!(did_you_mean.as_deref(), Some("reviewer"));
            }
            other => panic!("expected UnknownModel, got {other:?}"),
        }
    }

    #[test]
    fn a_price_costs_prompt_and_completion_tokens() {
        let price = Price { prompt_usd_per_token: 0.000_001, completion_usd_per_token: 0.000_002 };
        let usage = Usage { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
        assert!((price.cost(&usage) - 0.002).abs() < 1e-12);
    }
}
