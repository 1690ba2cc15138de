/* Fixture code (ours): a plain compile error the knowledge base does not
 * know, for the build's first-error line. */
int fixture_broken(void) { return undeclared_fixture_symbol; }
