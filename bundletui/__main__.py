from bundletui.cli import main

main()
