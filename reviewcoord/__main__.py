"""`python -m reviewcoord …`: the same command as `reviewcoord …`."""

from reviewcoord.cli import main

if (
    __name__ == "__main__"
):  # importing the package's modules (the image's bytecode step) runs nothing
    raise SystemExit(main())
