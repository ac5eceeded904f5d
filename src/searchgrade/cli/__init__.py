"""The command lines: ``searchgrade trec_eval`` (:mod:`.trec_eval`) and the ``searchgrade`` command."""
