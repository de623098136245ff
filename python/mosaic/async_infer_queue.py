"""AsyncInferQueue: a pool of infer requests fed with start_async, as OpenVINO's."""
import queue


class AsyncInferQueue:
    """Runs inferences on `jobs` requests of one compiled model (0: the model's optimal number).

    start_async() takes an idle request (blocking until one is free) and starts it; the callback,
    callback(request, userdata), runs on completion, on a device thread. wait_all() waits for all.
    """

    def __init__(self, compiled_model, jobs=0):
        if jobs == 0:
            jobs = int(compiled_model.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
        if jobs < 1:
            raise ValueError(f"AsyncInferQueue needs at least one job, got {jobs}")
        self._requests = [compiled_model.create_infer_request() for _ in range(jobs)]
        self._userdata = [None] * jobs
        self._idle = queue.Queue()
        self._callback = None
        for i, request in enumerate(self._requests):
            request.set_callback(self._completed, i)
            self._idle.put(i)

    def _completed(self, index):
        # The request is done; it becomes idle even when the user's callback raises (the error is
        # then reported as unraisable by the request, and the queue keeps working).
        try:
            callback = self._callback
            if callback is not None:
                callback(self._requests[index], self._userdata[index])
        finally:
            self._idle.put(index)

    def set_callback(self, callback):
        """callback(request, userdata), called as each inference completes."""
        if callback is not None and not callable(callback):
            raise TypeError("AsyncInferQueue.set_callback: the callback must be callable")
        self._callback = callback

    def start_async(self, inputs=None, userdata=None):
        index = self._idle.get()
        self._userdata[index] = userdata
        try:
            self._requests[index].start_async(inputs)
        except BaseException:
            self._idle.put(index)
            raise

    def is_ready(self):
        """Whether a request is idle, so that start_async() would not block."""
        return not self._idle.empty()

    def get_idle_request_id(self):
        """Blocks until a request is idle and returns its index (it stays idle)."""
        index = self._idle.get()
        self._idle.put(index)
        return index

    def wait_all(self):
        """Waits for every started inference; raises the first error of one that failed."""
        for request in self._requests:
            request.wait()

    @property
    def userdata(self):
        return list(self._userdata)

    def __len__(self):
        return len(self._requests)

    def __iter__(self):
        return iter(self._requests)

    def __getitem__(self, index):
        return self._requests[index]
