//! Tokens: which ones a node offers, minting them for a new node or re-minting them for an old
//! one, and turning a token a door was given back into what it stands for.

use switchyard_core::state::Phase;
use switchyard_core::token::{Keyring, TokenError, TokenKind};
use switchyard_core::{AttemptId, Control, NodeId, NodeState, RunId, SessionId};
use switchyard_store::{NodeRecord, TokenRecord};

use crate::context::RunContext;
use crate::replay::advance_key;
use crate::{Error, Runtime, Target, Tokens, observe};

impl Runtime {
    /// Token records for a node created by this command; nothing can hold its positions yet.
    pub(crate) fn fresh_tokens(&self, session: SessionId, run: RunId, node: NodeId, offered: Offered) -> NewTokens {
        let attempt = Some(AttemptId::first_for(node));
        let record = |kind, attempt| TokenRecord { nonce: self.ids.nonce(), kind, session, run, node, attempt };
        let mut records = vec![record(TokenKind::State, None)];
        if offered.checkpoint {
            records.push(record(TokenKind::Checkpoint, attempt));
        }
        if offered.advance {
            records.push(record(TokenKind::Continue, attempt));
        }
        NewTokens { records }
    }

    /// The tokens of an existing node, re-minted identically when they were minted before.
    pub(crate) async fn tokens_for(
        &self,
        context: &RunContext,
        node: NodeId,
        state: &NodeState,
        attempt: AttemptId,
    ) -> Result<Tokens, Error> {
        let claim = |kind, attempt| {
            let record = TokenRecord {
                nonce: self.ids.nonce(),
                kind,
                session: context.run.session,
                run: context.run.id,
                node,
                attempt,
            };
            async move { self.store.claim_token(record).await.map(|nonce| self.keys.mint(kind, nonce).to_string()) }
        };
        let offered = Offered::at(state, context.run.control);
        Ok(Tokens {
            continue_token: if offered.advance { Some(claim(TokenKind::Continue, Some(attempt)).await?) } else { None },
            checkpoint_token: if offered.checkpoint {
                Some(claim(TokenKind::Checkpoint, Some(AttemptId::first_for(node))).await?)
            } else {
                None
            },
            state_token: claim(TokenKind::State, None).await?,
        })
    }

    /// An attempt on `node` that has not been used yet: the first one, or a fresh one.
    pub(crate) async fn open_attempt(&self, session: SessionId, node: NodeId) -> Result<AttemptId, Error> {
        let first = AttemptId::first_for(node);
        if self.advanced_on(session, node, first).await? { Ok(self.ids.attempt()) } else { Ok(first) }
    }

    /// Whether an advance from `node` on `attempt` is recorded (in `session`, the node's).
    pub(crate) async fn advanced_on(
        &self,
        session: SessionId,
        node: NodeId,
        attempt: AttemptId,
    ) -> Result<bool, Error> {
        Ok(self.store.recorded(session, &advance_key(node, attempt)).await?.is_some())
    }

    pub(crate) async fn resolve(&self, target: &Target) -> Result<(RunId, NodeId, Option<AttemptId>), Error> {
        match target {
            Target::Run(run) => {
                let record = self.store.run(*run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
                Ok((record.id, record.tip, None))
            }
            Target::Session(session) => {
                let record = self.session(*session).await?;
                let run = record.run.ok_or_else(|| self.not_found("run of session", session.to_string()))?;
                Box::pin(self.resolve(&Target::Run(run))).await
            }
            Target::Node(node) => {
                let record = self.node(*node).await?;
                Ok((record.run, record.id, None))
            }
            Target::Token(text) => {
                refuse_id_as_token(text, TokenKind::Continue)?;
                let token: switchyard_core::token::Token = text.parse()?;
                let record = self.token_record(text, token.kind, None).await?;
                Ok((record.run, record.node, record.attempt.filter(|_| token.kind == TokenKind::Continue)))
            }
        }
    }

    /// Verifies a token of `kind`. A run, session or node id given instead is told apart from a
    /// malformed token, and a token of another kind from a wrong one: the caller is told what it
    /// gave and where the right token comes from. A token whose signature does not verify, or
    /// that is no token at all, is logged as a security refusal (never the token itself).
    pub(crate) async fn verify_token(
        &self,
        text: &str,
        kind: TokenKind,
        expected_run: Option<RunId>,
    ) -> Result<switchyard_core::token::Token, Error> {
        refuse_id_as_token(text, kind)?;
        match self.keys.verify(text, kind) {
            Ok(token) => Ok(token),
            Err(TokenError::WrongKind { .. }) => {
                // Signed here, so the store knows its run, whose current tokens `show` prints.
                let given: switchyard_core::token::Token = text.parse()?;
                let run = self.store.token(given.nonce).await?.map(|record| record.run.to_string());
                Err(Error::TokenOfOtherKind { expected: kind, given: given.kind, run })
            }
            Err(refused) => {
                observe::token_refused(&refused, kind, expected_run);
                Err(refused.into())
            }
        }
    }

    /// Verifies a token of `kind` and looks up what it stands for.
    pub(crate) async fn token_record(
        &self,
        text: &str,
        kind: TokenKind,
        expected_run: Option<RunId>,
    ) -> Result<TokenRecord, Error> {
        let token = self.verify_token(text, kind, expected_run).await?;
        let record = self.store.token(token.nonce).await?.ok_or(Error::Token(TokenError::Unknown))?;
        check_run(&record, expected_run)?;
        Ok(record)
    }

    /// A verified token with its run's context and its node, read in one store round trip.
    pub(crate) async fn token_scope(
        &self,
        text: &str,
        kind: TokenKind,
        expected_run: Option<RunId>,
    ) -> Result<(TokenRecord, RunContext, NodeRecord), Error> {
        let token = self.verify_token(text, kind, expected_run).await?;
        let scope = self.store.token_scope(token.nonce).await?.ok_or(Error::Token(TokenError::Unknown))?;
        let record = scope.token;
        check_run(&record, expected_run)?;
        let run = scope.run.ok_or_else(|| self.not_found("run", record.run.to_string()))?;
        let session = scope.session.ok_or_else(|| self.not_found("session", record.session.to_string()))?;
        let node = scope.node.ok_or_else(|| self.not_found("node", record.node.to_string()))?;
        let workflow = self.loaded_by_hash(run.workflow_hash).await?;
        let workspace = session.workspace.map(std::path::PathBuf::from);
        let project = self.project_commands_of(&run, &workflow).await?;
        Ok((record, RunContext { run, goal: session.goal, workspace, workflow, project }, node))
    }
}

/// Which tokens a node offers: an agent may advance only where a step waits for it, and nothing
/// may be recorded on a finished run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offered {
    pub(crate) advance: bool,
    pub(crate) checkpoint: bool,
}

impl Offered {
    pub(crate) fn at(state: &NodeState, control: Control) -> Self {
        let finished = state.status().is_terminal() || control == Control::Stopped;
        Self {
            advance: !finished && matches!(state.phase, Phase::Pending | Phase::Blocked { .. }),
            checkpoint: !finished,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct NewTokens {
    pub(crate) records: Vec<TokenRecord>,
}

impl NewTokens {
    pub(crate) fn minted(&self, keys: &Keyring) -> Tokens {
        let find = |kind| {
            self.records
                .iter()
                .find(|record| record.kind == kind)
                .map(|record| keys.mint(kind, record.nonce).to_string())
        };
        Tokens {
            continue_token: find(TokenKind::Continue),
            checkpoint_token: find(TokenKind::Checkpoint),
            state_token: find(TokenKind::State).unwrap_or_default(),
        }
    }
}

/// Refuses a token of another run than the one the caller named.
pub(crate) fn check_run(record: &TokenRecord, expected_run: Option<RunId>) -> Result<(), Error> {
    match expected_run {
        Some(run) if run != record.run => Err(Error::Token(TokenError::WrongRun {
            token_run: record.run.to_string(),
            requested_run: run.to_string(),
        })),
        _ => Ok(()),
    }
}

/// Refuses a run, session or node id given where a token of `kind` is expected, saying what it is
/// and where its token comes from, rather than calling it a malformed token.
pub(crate) fn refuse_id_as_token(text: &str, kind: TokenKind) -> Result<(), Error> {
    let id = text.trim();
    let what = [(RunId::PREFIX, "run"), (SessionId::PREFIX, "session"), (NodeId::PREFIX, "node")]
        .into_iter()
        .find_map(|(prefix, what)| id.starts_with(prefix).then_some(what));
    match what {
        Some(what) => Err(Error::IdNotToken { what, id: id.to_owned(), expected: kind.name() }),
        None => Ok(()),
    }
}
