//! CUDA streams and events behind the ports' [`Stream`] and [`Event`].

use std::any::Any;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{result as dr, sys};
use tenor_ports::{ComputeError, Event, EventImpl, Stream, StreamImpl};

use crate::context::Context;
use crate::error::drv;

/// A non-blocking CUDA stream (`cuStreamCreate` with `CU_STREAM_NON_BLOCKING`, so it never
/// synchronises with the legacy default stream).
#[derive(Debug)]
pub struct CudaStream {
    raw: sys::CUstream,
    ctx: Arc<Context>,
    id: OnceLock<u64>,
    /// Whether Tenor created the stream (and destroys it on drop).
    owned: bool,
}

// SAFETY: CUstream handles may be used from any thread of the process (the context is bound
// before each use).
unsafe impl Send for CudaStream {}
// SAFETY: as above; the handle is never mutated.
unsafe impl Sync for CudaStream {}

impl CudaStream {
    /// Creates a stream on `ctx` and wraps it as a port [`Stream`].
    ///
    /// # Errors
    /// Driver errors of `cuStreamCreate`.
    pub fn create(ctx: &Arc<Context>) -> Result<Stream, ComputeError> {
        ctx.bind()?;
        let raw = dr::stream::create(dr::stream::StreamKind::NonBlocking).map_err(|e| drv("cuStreamCreate", e))?;
        let inner = Arc::new(Self { raw, ctx: ctx.clone(), id: OnceLock::new(), owned: true });
        let s = Stream::new(inner.clone());
        let _ = inner.id.set(s.id());
        Ok(s)
    }

    /// Wraps a stream another library created (PyTorch's or CuPy's `cudaStream_t`; null is the
    /// legacy default stream) as a port [`Stream`]. The stream is borrowed: dropping the wrapper
    /// never destroys it, and the caller keeps it alive while blocks are in flight on it.
    ///
    /// # Safety
    /// `raw` must be null or a live stream of `ctx`'s context for as long as the returned
    /// [`Stream`] (and every clone) is used.
    pub unsafe fn borrowed(ctx: &Arc<Context>, raw: sys::CUstream) -> Stream {
        let inner = Arc::new(Self { raw, ctx: ctx.clone(), id: OnceLock::new(), owned: false });
        let s = Stream::new(inner.clone());
        let _ = inner.id.set(s.id());
        s
    }

    /// The driver handle.
    pub fn raw(&self) -> sys::CUstream {
        self.raw
    }

    /// The context the stream belongs to.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// Records a timing-enabled event (for benchmarks: `cuEventElapsedTime` between two).
    ///
    /// # Errors
    /// Driver errors.
    pub fn record_timed(&self) -> Result<Arc<CudaEvent>, ComputeError> {
        self.record_raw(sys::CUevent_flags::CU_EVENT_DEFAULT)
    }

    fn record_raw(&self, flags: sys::CUevent_flags) -> Result<Arc<CudaEvent>, ComputeError> {
        self.ctx.bind()?;
        let raw = dr::event::create(flags).map_err(|e| drv("cuEventCreate", e))?;
        let ev = Arc::new(CudaEvent { raw, ctx: self.ctx.clone() });
        // SAFETY: both handles are live and belong to the bound context.
        unsafe { dr::event::record(raw, self.raw) }.map_err(|e| drv("cuEventRecord", e))?;
        Ok(ev)
    }
}

/// The CUDA stream behind a port stream.
///
/// # Errors
/// [`ComputeError::ForeignHandle`] when the stream belongs to another backend.
pub fn cuda_stream(stream: &Stream) -> Result<&CudaStream, ComputeError> {
    stream
        .downcast::<CudaStream>()
        .ok_or_else(|| ComputeError::ForeignHandle(format!("{stream:?} is not a CUDA stream")))
}

impl StreamImpl for CudaStream {
    fn record(&self) -> Result<Event, ComputeError> {
        let ev = self.record_raw(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
        Ok(Event::new(self.id.get().copied(), ev))
    }

    fn wait_event(&self, event: &Event) -> Result<(), ComputeError> {
        let ev = event.downcast::<CudaEvent>();
        match ev {
            Some(ev) => {
                self.ctx.bind()?;
                // SAFETY: live stream and event handles of the bound context.
                unsafe { dr::stream::wait_event(self.raw, ev.raw, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
                    .map_err(|e| drv("cuStreamWaitEvent", e))
            }
            // Stream::wait hands over only events of this device (its foreign-event policy).
            None => Err(ComputeError::ForeignHandle(format!("{event:?} is not a CUDA event"))),
        }
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        self.ctx.bind()?;
        // SAFETY: live stream handle.
        unsafe { dr::stream::synchronize(self.raw) }.map_err(|e| drv("cuStreamSynchronize", e))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        if self.owned && self.ctx.bind().is_ok() {
            // SAFETY: the stream is no longer referenced; the driver releases it once its work
            // completed. A teardown error cannot be acted on here.
            let _ = unsafe { dr::stream::destroy(self.raw) };
        }
    }
}

/// A CUDA event.
#[derive(Debug)]
pub struct CudaEvent {
    raw: sys::CUevent,
    ctx: Arc<Context>,
}

// SAFETY: CUevent handles may be used from any thread (context bound before use).
unsafe impl Send for CudaEvent {}
// SAFETY: as above.
unsafe impl Sync for CudaEvent {}

impl CudaEvent {
    /// Milliseconds between `start` and `self` (both timing-enabled, both complete).
    ///
    /// # Errors
    /// Driver errors (`CUDA_ERROR_NOT_READY` while either is pending).
    pub fn elapsed_ms_since(&self, start: &CudaEvent) -> Result<f32, ComputeError> {
        self.ctx.bind()?;
        // SAFETY: live event handles of one context.
        unsafe { dr::event::elapsed(start.raw, self.raw) }.map_err(|e| drv("cuEventElapsedTime", e))
    }
}

impl EventImpl for CudaEvent {
    fn is_complete(&self) -> Result<bool, ComputeError> {
        self.ctx.bind()?;
        // SAFETY: live event handle.
        match unsafe { sys::cuEventQuery(self.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            other => Err(drv("cuEventQuery", dr::DriverError(other))),
        }
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        self.ctx.bind()?;
        // SAFETY: live event handle.
        unsafe { dr::event::synchronize(self.raw) }.map_err(|e| drv("cuEventSynchronize", e))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: no other reference; destroying a pending event is allowed (resources
            // are released once it completes).
            let _ = unsafe { dr::event::destroy(self.raw) };
        }
    }
}
