//! Ports on 127.0.0.1 for the dependency servers.
//!
//! A dependency that refuses connections closes its port and opens it again later, so its
//! port is taken below the range the system hands out to outgoing connections: no client
//! socket can be given that port meanwhile (which would keep it from listening again), and
//! no connection to the closed port can ever connect to itself.

use std::net::{Ipv4Addr, TcpListener};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::time::sleep_ms;

/// The lowest port of the ephemeral range, as the system says (32768 if it does not).
fn ephemeral_low() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768)
}

/// A listener on a free port of 127.0.0.1 below the ephemeral range, if one is found
/// after a few tries; else on any free port.
pub fn listen_below_ephemeral() -> std::io::Result<(TcpListener, u16)> {
    static TRIES: AtomicU32 = AtomicU32::new(0);
    let high = ephemeral_low();
    let low = 20_000u16;
    if high > low + 100 {
        let span = u32::from(high - low);
        let seed = std::process::id().wrapping_mul(2_654_435_761);
        for _ in 0..64 {
            let n = TRIES.fetch_add(1, Ordering::SeqCst);
            let offset = seed.wrapping_add(n.wrapping_mul(40_503)) % span;
            let port = low + u16::try_from(offset).unwrap_or(0);
            if let Ok(l) = TcpListener::bind((Ipv4Addr::LOCALHOST, port)) {
                return Ok((l, port));
            }
        }
    }
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let port = l.local_addr()?.port();
    Ok((l, port))
}

/// Listens on `port` again, trying for up to two seconds while the previous listener is
/// still closing.
pub fn listen_again(port: u16) -> std::io::Result<TcpListener> {
    let mut last = None;
    for _ in 0..200 {
        match TcpListener::bind((Ipv4Addr::LOCALHOST, port)) {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
        sleep_ms(10.0);
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no attempt made")))
}
