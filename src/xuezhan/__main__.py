from xuezhan.cli import run

if __name__ == "__main__":  # not when a spawned worker process imports the main module
    run()
