//! Streams (in-order queues), events and pending results.
//!
//! The model is CUDA's (CUDA Programming Guide, "Streams" and "Events"), which SYCL in-order
//! queues and OpenCL in-order command queues share: work enqueued on one stream runs in
//! enqueue order; an event recorded on a stream completes when all work enqueued before it has
//! completed; a stream made to wait on an event runs later work only after that event completed.

use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::ComputeError;

static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

/// What an adapter implements for one of its streams.
pub trait StreamImpl: Send + Sync + fmt::Debug {
    /// Records an event that completes once all work enqueued so far on this stream completed.
    ///
    /// # Errors
    /// A backend error from the native record call.
    fn record(&self) -> Result<Event, ComputeError>;
    /// Makes work enqueued on this stream after the call wait until `event` completed.
    /// The host does not block.
    ///
    /// [`Stream::wait`] calls this only for an event recorded on another stream of the same
    /// [`crate::Device`] (or, for streams made outside any device, of the same kind); events of
    /// other devices and backends are handled there, once for all adapters (the host waits for
    /// them), so an adapter never needs a fallback of its own.
    ///
    /// # Errors
    /// [`ComputeError::ForeignHandle`] when the event is not the adapter's own type (a broken
    /// invariant, not a case to handle).
    fn wait_event(&self, event: &Event) -> Result<(), ComputeError>;
    /// Blocks the host until all work enqueued on this stream completed, and returns the
    /// first asynchronous error of that work.
    ///
    /// # Errors
    /// The sticky asynchronous error, if any.
    fn synchronize(&self) -> Result<(), ComputeError>;
    /// The adapter's concrete type, for downcasting.
    fn as_any(&self) -> &dyn Any;
}

/// A cheap, cloneable handle to an in-order queue of device work.
///
/// Equality and hashing use a process-wide unique id.
#[derive(Clone)]
pub struct Stream {
    id: u64,
    domain: u64,
    inner: Arc<dyn StreamImpl>,
}

impl Stream {
    /// Wraps an adapter's stream with a fresh process-wide unique id. The stream belongs to no
    /// device until a [`crate::Device`] hands it out (see [`Stream::device_id`]).
    pub fn new(inner: Arc<dyn StreamImpl>) -> Self {
        Self { id: NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed), domain: 0, inner }
    }
    /// The same stream, marked as a stream of device `domain` (done by [`crate::Device`] for
    /// every stream it creates).
    pub(crate) fn in_domain(mut self, domain: u64) -> Self {
        self.domain = domain;
        self
    }
    /// Process-wide unique id of this stream.
    pub fn id(&self) -> u64 {
        self.id
    }
    /// Id of the [`crate::Device`] that created this stream ([`crate::Device::id`]), or 0 for
    /// a stream made outside any device (an allocator's test stream, a borrowed stream).
    pub fn device_id(&self) -> u64 {
        self.domain
    }
    /// Records an event on this stream (see [`StreamImpl::record`]); the event remembers this
    /// stream's device.
    ///
    /// # Errors
    /// A backend error.
    pub fn record(&self) -> Result<Event, ComputeError> {
        let mut e = self.inner.record()?;
        e.domain = self.domain;
        Ok(e)
    }
    /// Makes this stream wait on `event`.
    ///
    /// The foreign-event policy, the same for every adapter: an event of this stream needs no
    /// wait; an event recorded on another stream of the same device is a device-side wait
    /// ([`StreamImpl::wait_event`], the host does not block); any other event (another device,
    /// another backend, [`Event::completed`], or a device's event on a stream made outside any
    /// device, and the other way round) is waited for by the host here, before later work is
    /// enqueued, which orders that work after it on every backend. Streams made outside any
    /// device (an adapter's own, device id 0) wait on each other's events natively, as the
    /// adapter that made them defines.
    ///
    /// # Errors
    /// A backend error of the wait, or the asynchronous error of the work a foreign event
    /// follows.
    pub fn wait(&self, event: &Event) -> Result<(), ComputeError> {
        if event.stream_id() == Some(self.id) {
            return Ok(()); // an event of this stream is already ordered before later work
        }
        if event.domain == self.domain {
            return self.inner.wait_event(event);
        }
        event.synchronize()
    }
    /// Blocks until the stream's work completed (see [`StreamImpl::synchronize`]).
    ///
    /// # Errors
    /// The sticky asynchronous error of the stream's work.
    pub fn synchronize(&self) -> Result<(), ComputeError> {
        self.inner.synchronize()
    }
    /// The adapter's stream, when it is of type `T`.
    pub fn downcast<T: 'static>(&self) -> Option<&T> {
        self.inner.as_any().downcast_ref::<T>()
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Stream {}
impl std::hash::Hash for Stream {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}
impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Stream#{}({:?})", self.id, self.inner)
    }
}

/// What an adapter implements for one of its events.
pub trait EventImpl: Send + Sync + fmt::Debug {
    /// Whether the event completed, without blocking.
    ///
    /// # Errors
    /// A backend error.
    fn is_complete(&self) -> Result<bool, ComputeError>;
    /// Blocks the host until the event completed.
    ///
    /// # Errors
    /// A backend error, or the asynchronous error of the work it follows.
    fn synchronize(&self) -> Result<(), ComputeError>;
    /// The adapter's concrete type, for downcasting.
    fn as_any(&self) -> &dyn Any;
}

/// A marker in a stream: completes when all work enqueued on its stream before it completed.
#[derive(Clone)]
pub struct Event {
    stream: Option<u64>,
    domain: u64,
    inner: Arc<dyn EventImpl>,
}

#[derive(Debug)]
struct Completed;
impl EventImpl for Completed {
    fn is_complete(&self) -> Result<bool, ComputeError> {
        Ok(true)
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        Ok(())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Event {
    /// Wraps an adapter's event recorded on the stream with id `stream`.
    pub fn new(stream: Option<u64>, inner: Arc<dyn EventImpl>) -> Self {
        Self { stream, domain: 0, inner }
    }
    /// An event that is already complete (for backends that execute synchronously).
    pub fn completed() -> Self {
        Self { stream: None, domain: 0, inner: Arc::new(Completed) }
    }
    /// Id of the stream the event was recorded on, if any.
    pub fn stream_id(&self) -> Option<u64> {
        self.stream
    }
    /// Id of the device whose stream recorded the event ([`Stream::device_id`]; 0 for none).
    pub fn device_id(&self) -> u64 {
        self.domain
    }
    /// Non-blocking completion query.
    ///
    /// # Errors
    /// A backend error.
    pub fn is_complete(&self) -> Result<bool, ComputeError> {
        self.inner.is_complete()
    }
    /// Blocks the host until completion.
    ///
    /// # Errors
    /// A backend or asynchronous error.
    pub fn synchronize(&self) -> Result<(), ComputeError> {
        self.inner.synchronize()
    }
    /// The adapter's event, when it is of type `T`.
    pub fn downcast<T: 'static>(&self) -> Option<&T> {
        self.inner.as_any().downcast_ref::<T>()
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Event(stream {:?}, device {}, {:?})", self.stream, self.domain, self.inner)
    }
}

type Fetch<T> = Box<dyn FnOnce() -> Result<T, ComputeError> + Send>;

/// A result the device is still producing: a host-side ticket that owns whatever the device
/// still writes into, and gives the value back from [`Pending::wait`].
#[must_use = "a pending result does nothing until waited on"]
pub struct Pending<T> {
    event: Option<Event>,
    fetch: Fetch<T>,
}

impl<T: Send + 'static> Pending<T> {
    /// A pending value: `fetch` runs after `event` completed.
    pub fn new(event: Option<Event>, fetch: impl FnOnce() -> Result<T, ComputeError> + Send + 'static) -> Self {
        Self { event, fetch: Box::new(fetch) }
    }
    /// A value that is already there.
    pub fn ready(value: T) -> Self {
        Self::new(None, move || Ok(value))
    }
    /// Whether [`Pending::wait`] would return without blocking on the device.
    ///
    /// # Errors
    /// A backend error.
    pub fn is_ready(&self) -> Result<bool, ComputeError> {
        match &self.event {
            Some(e) => e.is_complete(),
            None => Ok(true),
        }
    }
    /// Blocks until the value is there and returns it, or the asynchronous error that
    /// prevented it.
    ///
    /// # Errors
    /// The asynchronous error of the work that produces the value.
    pub fn wait(self) -> Result<T, ComputeError> {
        if let Some(e) = &self.event {
            e.synchronize()?;
        }
        (self.fetch)()
    }
    /// Transforms the value once it is there.
    pub fn map<U: Send + 'static>(self, f: impl FnOnce(T) -> U + Send + 'static) -> Pending<U> {
        let fetch = self.fetch;
        Pending::new(self.event, move || fetch().map(f))
    }
}

impl<T> fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pending({:?})", self.event)
    }
}
