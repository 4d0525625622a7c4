//! The English word lists the rules are built from: job titles as
//! English forms them, the qualifiers and trades a bare "she is a ..."
//! is read by, kinds of workplace, the words formed like titles that
//! name no job, pets. (The gate's words are `words.rs`; the words taken
//! for no name, `names.rs`.)

/// A job title as English forms one: "nurse", "software engineer",
/// "head chef"; words so formed that name no job are `NOT_JOBS`.
pub(super) const TITLE: &str = r"(?:(?:senior|junior|head|lead|chief|staff|registered|assistant|associate|principal|software|data|research|sales|marketing|product|project|dental|school|line) )?(?:[a-z]+(?:er|or|ist|ian|ant|ent|eer)|nurse|doctor|chef|cook|clerk|nanny|surgeon|paramedic|pilot|lawyer|attorney|analyst|midwife|vet|barista|waitress|cashier|secretary|intern|trainee|apprentice|postdoc|coach)";
/// What may stand before a trade: "a software engineer", "a head nurse".
pub(super) const QUALIFIER: &str = r"senior|junior|head|lead|chief|staff|registered|assistant|associate|principal|software|data|research|sales|marketing|product|project|dental|school|line|math|maths|english|music|art|science|history|primary school|high school|freelance|graphic|web|civil|mechanical|electrical|social|flight|police|fire|truck|bus|taxi|real estate|personal|yoga|dog|hair|pastry|sous";
/// Words that name a trade: what a bare "she is a ..." is read as a job
/// from (an `-er` word may name a dreamer; these do not), and the endings
/// only trades take ("pediatrician", "cardiologist", "psychiatrist",
/// "choreographer", "physiotherapist", "optometrist").
pub(super) const PROFESSIONS: &str = r"nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|psychologist|psychiatrist|paramedic|midwife|vet|veterinarian|teacher|professor|lecturer|tutor|librarian|engineer|developer|programmer|designer|architect|scientist|researcher|analyst|accountant|auditor|consultant|lawyer|attorney|paralegal|judge|banker|economist|journalist|reporter|editor|writer|author|translator|photographer|artist|musician|actor|actress|chef|cook|baker|barista|bartender|waiter|waitress|cashier|clerk|secretary|receptionist|manager|director|executive|entrepreneur|founder|recruiter|marketer|salesperson|electrician|plumber|carpenter|mechanic|technician|farmer|gardener|pilot|driver|firefighter|officer|soldier|detective|social worker|caregiver|nanny|hairdresser|barber|trainer|coach|intern|postdoc|student nurse|[a-z]+(?:ician|ologist|iatrist|ographer|apist|ometrist)";
/// Kinds of workplace, for a place said without a name ("a private
/// clinic").
pub(super) const WORKPLACES: &str = r"hospital|clinic|school|university|college|company|firm|startup|start-up|bank|agency|studio|restaurant|cafe|bakery|factory|lab|laboratory|store|shop|hotel|office|practice|museum|library|newspaper|magazine|pharmacy|charity|nonprofit|non-profit|salon|garage|airline|warehouse|supermarket|daycare|kindergarten|consultancy|publisher|theater|theatre|nursing home";
/// Words a title's form takes that name no job: "a sucker for", "a
/// member at", "a student at" (a school is no employer).
pub(super) const NOT_JOBS: &[&str] = &[
    "sucker",
    "stickler",
    "member",
    "regular",
    "customer",
    "beginner",
    "newcomer",
    "user",
    "student",
    "resident",
    "patient",
    "participant",
    "volunteer",
    "visitor",
    "winner",
    "lover",
    "believer",
    "fan",
    "guest",
    "client",
    "owner",
    "parent",
    "tourist",
    "vegetarian",
    "runner",
    "rider",
    "player",
    "fighter",
    "survivor",
    "supporter",
    "follower",
    "subscriber",
    "donor",
    "applicant",
    "finalist",
    "attendee",
    "passenger",
    "traveler",
    "traveller",
    "reader",
    "listener",
    "viewer",
    "gamer",
    "foodie",
    "mother",
    "father",
    "brother",
    "sister",
    "daughter",
    "grandmother",
    "grandfather",
    "partner",
    "neighbor",
    "neighbour",
    "friend",
    "rookie",
    "newbie",
    "amateur",
];
pub(super) const PETS: &str =
    r"dog|cat|puppy|kitten|parrot|bird|hamster|rabbit|bunny|fish|turtle|snake|horse|guinea pig";
