"""Every misuse of streams, events and graphs is a clear Python exception."""

import pytest

import devarray


def test_closed_stream_refuses_use(backend):
    s = devarray.Stream()
    s.close()
    assert s.closed
    for call in (s.synchronize, s.query, s.__cuda_stream__, s.__enter__):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    with pytest.raises(RuntimeError, match="closed"):
        s.wait_stream(devarray.current_stream())
    with pytest.raises(RuntimeError, match="closed"):
        devarray.Stream().wait_stream(s)
    with pytest.raises(RuntimeError, match="closed"):
        devarray.Event().record(s)
    s.close()  # closing twice is harmless


def test_close_rules(backend):
    with pytest.raises(ValueError, match="default stream"):
        devarray.current_stream().close()
    s = devarray.Stream()
    with s:
        with pytest.raises(RuntimeError, match="current"):
            s.close()
    s.close()


def test_with_blocks_exit_in_order(backend):
    s1, s2 = devarray.Stream(), devarray.Stream()
    s1.__enter__()
    s2.__enter__()
    with pytest.raises(RuntimeError, match="innermost"):
        s1.__exit__(None, None, None)
    s2.__exit__(None, None, None)
    s1.__exit__(None, None, None)
    with pytest.raises(RuntimeError, match="innermost"):
        s1.__exit__(None, None, None)
    assert devarray.current_stream().handle in (0, 2)


def test_constructor_arguments(backend):
    with pytest.raises(ValueError, match="priority"):
        devarray.Stream(priority=1000)
    with pytest.raises(TypeError):
        devarray.Stream(1)
    with pytest.raises(TypeError, match="__cuda_stream__"):
        devarray.ExternalStream("stream")
    with pytest.raises(ValueError):
        devarray.ExternalStream(-1)
    with pytest.raises(TypeError):
        devarray.ExternalStream(5, owner=None)

    class BadProtocol:
        def __cuda_stream__(self):
            return "nope"

    class FutureProtocol:
        def __cuda_stream__(self):
            return (7, 1234)

    with pytest.raises(TypeError, match="tuple"):
        devarray.ExternalStream(BadProtocol())
    with pytest.raises(ValueError, match="version"):
        devarray.ExternalStream(FutureProtocol())
    with pytest.raises(ValueError, match="legacy"):
        devarray.set_default_stream("sometimes")
    with pytest.raises(TypeError, match="Stream"):
        devarray.Stream().wait_stream(3.5)


def test_event_misuse(backend):
    untimed, timed = devarray.Event(timing=False), devarray.Event()
    untimed.record()
    timed.record()
    with pytest.raises(ValueError, match="timing"):
        untimed.elapsed_time(timed)
    with pytest.raises(RuntimeError, match="recorded"):
        devarray.Event().elapsed_time(timed)
    with pytest.raises(TypeError, match="Event"):
        timed.elapsed_time(3)
    with pytest.raises(TypeError, match="Event"):
        devarray.Stream().wait_event("event")
    with pytest.raises(TypeError):
        timed.record(stream=3.5)
