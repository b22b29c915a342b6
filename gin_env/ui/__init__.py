"""What a person sees: the text and RGB pictures of a hand (``render``, ``frame``), the terminal game (``play``,
``gin-env play``) and the replay viewer (``viewer``, ``gin-env replay``)."""
