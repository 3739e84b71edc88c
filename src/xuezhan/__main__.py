from xuezhan.cli import run

run()
