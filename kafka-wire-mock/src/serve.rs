//! The brokers' sockets: one accept task per broker, one task per connection, requests served
//! one at a time per connection in order (as Kafka does).

use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use kafka_wire::codec::Framed;
use kafka_wire::typed::ServerCodec;
use kafka_wire::Bytes;
use kafka_wire_messages::{RequestBody, RequestFrame, ResponseFrame};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use crate::control::{check_frame, Intercept};
use crate::state::Shared;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Accepts `broker`'s connections until aborted; aborting drops the `JoinSet`, which aborts
/// every connection's task.
pub(crate) async fn accept(listener: TcpListener, shared: Arc<Shared>, broker: i32) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((socket, _)) = accepted else { continue };
                let _ = socket.set_nodelay(true);
                connections.spawn(connection(socket, shared.clone(), broker));
            }
            // Reap finished connections so the set does not grow.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn connection(socket: TcpStream, shared: Arc<Shared>, broker: i32) {
    // A connection ends on any socket or framing error, as Kafka closes it.
    let _ = serve(socket, &shared, broker).await;
}

async fn serve(socket: TcpStream, shared: &Shared, broker: i32) -> Result<(), Error> {
    let mut conn = Framed::new(socket, ServerCodec::<RequestFrame, ResponseFrame>::new());
    while let Some(item) = conn.next().await {
        let req = match item? {
            Ok(req) => req,
            // ApiVersions at a version we do not know: UNSUPPORTED_VERSION at v0 (KIP-511);
            // any other request that does not decode closes the connection, as in Kafka.
            Err(bad) => {
                let served = shared.lock().served.clone();
                match served.answer_undecodable(&bad.frame) {
                    Some(answer) => {
                        send(&mut conn, shared, answer).await?;
                        continue;
                    }
                    None => return Err(bad.error.into()),
                }
            }
        };
        let (error, hook) = {
            let mut s = shared.lock();
            if !s.brokers.contains_key(&broker) {
                return Ok(());
            }
            s.control.on_request(broker, &req)
        };
        if let Some(hook) = hook {
            match hook(&req) {
                Intercept::Pass => {}
                Intercept::Respond(answer) => {
                    send(&mut conn, shared, *answer).await?;
                    continue;
                }
                Intercept::Drop => return Ok(()),
                Intercept::Delay(d) => tokio::time::sleep(d).await,
            }
        }
        let served = shared.lock().served.clone();
        let answer = if let Err(refused) = served.check(&req) {
            Some(refused)
        } else if let Some(error) = error {
            no_answer_to_acks_0(&req).then(|| req.error_response(error))
        } else {
            crate::apis::answer(shared, broker, &served, &req).await
        };
        shared.changed.notify_waiters();
        if let Some(answer) = answer {
            send(&mut conn, shared, answer).await?;
        }
    }
    Ok(())
}

/// Whether `req` expects an answer: all but Produce with acks 0.
fn no_answer_to_acks_0(req: &RequestFrame) -> bool {
    !matches!(&req.body, RequestBody::Produce(p) if p.acks == 0)
}

/// Encodes `answer` once and sends the bytes; in debug builds the bytes are first decoded
/// again by the library's response decoder, and a failure is recorded for the test.
async fn send(
    conn: &mut Framed<TcpStream, ServerCodec<RequestFrame, ResponseFrame>>,
    shared: &Shared,
    answer: ResponseFrame,
) -> Result<(), Error> {
    let bytes: Bytes = match answer.to_bytes() {
        Ok(b) => b,
        Err(e) => {
            let error = format!("{} v{}: encode: {e}", answer.api_key, answer.version);
            shared.lock().control.frame_errors.push(error);
            return Err(e.into());
        }
    };
    if cfg!(debug_assertions) {
        if let Err(e) = check_frame(&answer, &bytes) {
            shared.lock().control.frame_errors.push(e);
        }
    }
    conn.send(bytes).await?;
    Ok(())
}
