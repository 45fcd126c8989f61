import sys
from pathlib import Path

# tests/contract.py is a helper module shared by the test packages.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "engine"))
sys.path.insert(0, str(Path(__file__).parent / "golden"))
