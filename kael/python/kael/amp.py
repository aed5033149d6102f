"""kael.amp: autocast's name. Mixed precision needs bfloat16 and float16, which arrive in
stage 15; until then a disabled autocast is an empty context, an enabled one an error
that says so."""


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if enabled:
            raise NotImplementedError("kael.amp.autocast: kael has no reduced-precision types yet (stage 15); "
                                      "run in float32 (autocast(enabled=False), or no autocast)")
        self.device_type = device_type

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, function):
        return function
