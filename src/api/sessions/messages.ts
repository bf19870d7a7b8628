/**
 * What the login form says, in the reference's words (zerver/forms.py OurAuthenticationForm):
 * shared by the shard's login page and the front end's refusal of a login over its address's
 * limit (front/pages.ts), which answers before any shard renders the form.
 */
export const LOGIN_MESSAGES = {
  invalid: 'Incorrect email or password.',
  deactivatedUser: (email: string) => `Your account ${email} has been deactivated. Please contact your organization administrator to reactivate it.`,
  rateLimited: (seconds: number) =>
    `You're making too many attempts to sign in. Try again in ${seconds} seconds or contact your organization administrator for help.`,
};
