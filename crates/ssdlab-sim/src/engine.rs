//! The discrete-event engine: `ssdlab_protocol::engine` (the event queue
//! sits with the protocol so that a device model's tests can drive it
//! without the kernel). The time limits of the crates that parse user input
//! are the engine's.

pub use ssdlab_protocol::engine::*;
const _: () = assert!(ssdlab_fio::MAX_TIME_NS == MAX_TIME_NS);
const _: () = assert!(ssdlab_trace::MAX_TIME_NS == MAX_TIME_NS);
