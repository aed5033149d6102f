"""kael.nn.parallel: DistributedDataParallel's name, so that a program importing it runs;
constructing one says that kael has no process groups yet (they arrive in stage 16)."""


class DistributedDataParallel:
    def __init__(self, module, *args, **kwargs):
        raise RuntimeError("kael.nn.parallel.DistributedDataParallel: kael has no distributed training yet "
                           "(process groups arrive in stage 16); run the program as one process")


class DataParallel(DistributedDataParallel):
    pass


__all__ = ["DistributedDataParallel", "DataParallel"]
