"""kael.distributed: the names a single-process program imports from torch.distributed.
kael has no process groups before stage 16: is_available() says so, and a call that
would start one raises an error that names the missing feature."""


def is_available():
    return False


def is_initialized():
    return False


def _missing(name):
    def call(*args, **kwargs):
        raise RuntimeError(f"kael.distributed.{name}: kael has no distributed training yet "
                           "(process groups arrive in stage 16); run the program as one process")

    call.__name__ = name
    return call


init_process_group = _missing("init_process_group")
destroy_process_group = _missing("destroy_process_group")
all_reduce = _missing("all_reduce")
broadcast = _missing("broadcast")
barrier = _missing("barrier")
get_rank = _missing("get_rank")
get_world_size = _missing("get_world_size")
