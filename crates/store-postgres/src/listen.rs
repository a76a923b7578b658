//! Live updates across servers: one connection per store that `LISTEN`s on the changes channel
//! and publishes what other servers commit to this store's feed. Each append sends its notice
//! with `pg_notify` in its own transaction, so Postgres delivers it exactly when (and only if) the
//! batch commits. Started by the first subscriber; reconnects with a growing pause after losing
//! its connection, and then tells every subscriber to read everything again: Postgres keeps no
//! notice for a listener that is gone, so what committed in between went unheard.

use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_postgres::AsyncMessage;
use tokio_postgres_rustls::MakeRustlsConnect;

use switchyard_store::{Change, Feed};

use crate::writer::CHANGES_CHANNEL;

/// The longest pause between two attempts to reconnect the listener.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The running listener of one store.
#[derive(Debug)]
pub(crate) struct Listener {
    /// `true` while the `LISTEN` is in force.
    ready: watch::Receiver<bool>,
    task: JoinHandle<()>,
}

impl Listener {
    /// Starts listening on `runtime`; the store's own commits (tagged `instance`) are skipped,
    /// since the store publishes them itself before `append` returns.
    pub(crate) fn start(
        runtime: &tokio::runtime::Handle,
        config: tokio_postgres::Config,
        tls: MakeRustlsConnect,
        target: String,
        feed: Feed,
        instance: String,
    ) -> Listener {
        let (ready_sender, ready) = watch::channel(false);
        let connection = Connection { config, tls };
        let task = runtime.spawn(run(connection, target, feed, instance, ready_sender));
        Listener { ready, task }
    }

    /// Waits until the `LISTEN` is in force: from then on, every commit reaches the feed.
    pub(crate) async fn ready(&self) {
        let mut ready = self.ready.clone();
        // The sender lives as long as the task, which runs until the store is dropped.
        let _ = ready.wait_for(|listening| *listening).await;
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the listener connects with: the store's configuration and TLS.
struct Connection {
    config: tokio_postgres::Config,
    tls: MakeRustlsConnect,
}

async fn run(connection: Connection, target: String, feed: Feed, instance: String, ready: watch::Sender<bool>) {
    let mut backoff = Duration::from_millis(50);
    // Whether commits may have gone unheard: after any attempt that failed or ended.
    let mut gap = false;
    loop {
        match listen(&connection, &feed, &instance, &ready, &mut backoff, gap).await {
            Ok(()) => tracing::warn!(%target, "the change listener's connection closed; reconnecting"),
            Err(error) => tracing::warn!(%target, %error, "the change listener lost its connection; reconnecting"),
        }
        ready.send_replace(false);
        gap = true;
        // A pause between attempts, not a poll of the store: the server is down or restarting.
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// One connection's life: connect, `LISTEN`, publish a gap if an earlier connection left one,
/// then notices until the connection ends.
async fn listen(
    to: &Connection,
    feed: &Feed,
    instance: &str,
    ready: &watch::Sender<bool>,
    backoff: &mut Duration,
    gap: bool,
) -> Result<(), tokio_postgres::Error> {
    let (client, mut connection) = to.config.connect(to.tls.clone()).await?;
    let (notices, mut received) = mpsc::unbounded_channel();
    // The connection delivers notifications as it reads from the socket; it must be driven for
    // the client's own statements too.
    let driver = tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|context| connection.poll_message(context)).await {
                Some(Ok(AsyncMessage::Notification(notice))) => {
                    if notices.send(notice.payload().to_owned()).is_err() {
                        return Ok(());
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(error),
                None => return Ok(()),
            }
        }
    });
    client.batch_execute(&format!("LISTEN {CHANGES_CHANNEL}")).await?;
    ready.send_replace(true);
    if gap {
        // After the `LISTEN`: a commit from now on is heard, one from before is read again.
        feed.publish_gap();
    }
    *backoff = Duration::from_millis(50);
    while let Some(payload) = received.recv().await {
        match parse(&payload) {
            Some((from, change)) if from != instance => feed.publish(change),
            Some(_) => {}
            None => tracing::debug!(%payload, "an unreadable change notice was ignored"),
        }
    }
    drop(client);
    match driver.await {
        Ok(result) => result,
        Err(_) => Ok(()),
    }
}

/// A notice is `<instance> <session> <last_seq>`.
fn parse(payload: &str) -> Option<(&str, Change)> {
    let mut parts = payload.split(' ');
    let instance = parts.next()?;
    let session = parts.next()?.parse().ok()?;
    let last_seq = parts.next()?.parse().ok()?;
    Some((instance, Change { session, last_seq }))
}
