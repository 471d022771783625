let next = 0;

/**
 * A project code no other call in this test file has answered: a letter, then four base-36 digits.
 * Codes cut from timestamps collided now and then (a flaky 409), so this counts instead; each test
 * file has a database of its own, so uniqueness within the file is all that is needed.
 */
export function uniqueProjectCode(letter = 'P'): string {
  return `${letter}${(next++).toString(36).padStart(4, '0')}`.toUpperCase();
}
