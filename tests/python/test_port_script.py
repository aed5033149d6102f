"""examples/porting/port.py, the tool the porting guide runs on nanoGPT and minGPT: it
changes import lines, every form of them, and nothing else."""
import pathlib
import subprocess
import sys

PORT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "porting" / "port.py"

SOURCE = '''import math
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data.dataloader import DataLoader
import torch.distributed
    import torch  # indented, inside a function
x = torch.zeros(3)  # import torch in a comment stays
y = "from torch import nn"
import torchvision
'''

EXPECTED = '''import math
import kael as torch
import kael.nn as nn
from kael.nn import functional as F
from kael.utils.data.dataloader import DataLoader
import kael.distributed
import kael as torch
    import kael as torch
x = torch.zeros(3)  # import torch in a comment stays
y = "from torch import nn"
import torchvision
'''


def test_only_import_lines_change(tmp_path):
    (tmp_path / "program.py").write_text(SOURCE)
    result = subprocess.run([sys.executable, str(PORT), str(tmp_path / "program.py"), str(tmp_path / "ported.py")],
                            capture_output=True, text=True, check=True)
    assert (tmp_path / "ported.py").read_text() == EXPECTED
    assert len(result.stdout.splitlines()) == 6  # one line printed per changed line
