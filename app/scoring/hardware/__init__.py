"""The hardware behind an offer: machines and their links, switchless boards, bytes and peaks per dtype, the
catalog gaps a GPU borrows from its siblings, and which serving engine runs on which vendor."""
