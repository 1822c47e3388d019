from vqakit.cli import main

main()
