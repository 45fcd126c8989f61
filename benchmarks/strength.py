"""A strength tournament; the same as ``atoll bench strength`` (see ``atoll bench strength --help``).

Example: python benchmarks/strength.py --game survive --players 2 --bot ismcts=ismcts,iterations=3000 \\
    --bot greedy=greedy --deals 200 --out runs/survive2-ismcts-greedy.jsonl --workers 2
"""

import sys

from server.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "strength", *sys.argv[1:]]))
