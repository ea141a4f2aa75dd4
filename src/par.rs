//! Work spread over the machine's cores in fixed, ordered slices: results come back in slice
//! order, so output never depends on scheduling. A panic in a worker is re-raised here.

/// Slice length for `len` items: one slice per core (at most 8), never tiny ones.
fn slice_len(len: usize) -> usize {
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(8);
    len.div_ceil(threads).max(64)
}

/// `f` over consecutive slices of `items`, one thread each; results in order.
pub fn map_slices<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    spawn_slices(items, None, f)
}

/// [`map_slices`] with each thread owning its slice mutably.
pub fn map_slices_mut<T: Send, R: Send>(items: &mut [T], f: impl Fn(&mut [T]) -> R + Sync) -> Vec<R> {
    let f = &f;
    let len = slice_len(items.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = items.chunks_mut(len).map(|s| scope.spawn(move || f(s))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    })
}

/// [`map_slices`] on threads with a stack of `stack` bytes, for deeply recursive work.
pub fn map_slices_with_stack<T: Sync, R: Send>(items: &[T], stack: usize, f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    spawn_slices(items, Some(stack), f)
}

/// One scoped thread per slice (with the default stack, or `stack` bytes); a slice whose
/// thread cannot be started runs on the calling thread.
fn spawn_slices<T: Sync, R: Send>(items: &[T], stack: Option<usize>, f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(slice_len(items.len()))
            .map(|s| {
                let builder =
                    stack.map_or_else(std::thread::Builder::new, |n| std::thread::Builder::new().stack_size(n));
                (s, builder.spawn_scoped(scope, move || f(s)))
            })
            .collect();
        handles
            .into_iter()
            .map(|(s, h)| match h {
                Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                Err(_) => f(s),
            })
            .collect()
    })
}
