"""Reference lists for HIPAA Safe Harbor detection: attribute-name labels and common names.

The labels and their Levenshtein tolerances follow ARX's ``labels.properties`` (US
resources), narrowed to what Safe Harbor actually requires to be removed (a state or a
year alone is allowed, so "state" and "year" are not listed) and extended with the kinds
ARX does not name (medical record, health plan and account numbers, biometrics, photos).
The name lists are small samples of very common US given names and surnames; a column
matches when most of its distinct values are in them.
"""

from __future__ import annotations

#: identifier kind -> instance -> {label: largest Levenshtein distance accepted}
NAME_LABELS: dict[str, dict[str, dict[str, int]]] = {
    "name": {
        "Name": {"name": 1, "full name": 2, "patient name": 2, "patient": 1},
        "First name": {"first name": 1, "firstname": 1, "forename": 1, "christian name": 2,
                       "given name": 1, "baptismal name": 2},
        "Last name": {"last name": 1, "lastname": 1, "family name": 2, "surname": 1,
                      "byname": 1, "cognomen": 1, "maiden name": 2},
    },
    "geographic_subdivision": {
        "Address": {"street": 1, "road": 1, "address": 1, "street address": 2,
                    "thoroughfare": 2, "location": 1, "locality": 1, "geocode": 1,
                    "latitude": 1, "longitude": 1, "coordinates": 2},
        "City": {"city": 1, "municipality": 2, "town": 1, "village": 1},
        "County": {"county": 1, "district": 1, "precinct": 1, "borough": 1, "parish": 1},
        "ZIP Code": {"zip": 1, "zip code": 1, "zipcode": 1, "postal code": 2, "postcode": 1,
                     "zip+4": 1},
    },
    "date": {
        "Date": {"date": 1, "birth date": 2, "birthdate": 2, "dob": 1, "date of birth": 2,
                 "date of death": 2, "date of admission": 3, "admission date": 2,
                 "discharge date": 2, "date of discharge": 3, "death date": 2, "day": 1,
                 "day of the month": 3, "timestamp": 2, "datetime": 2},
    },
    "telephone_number": {
        "Phone number": {"telephone": 2, "phone": 1, "phone number": 2, "tel": 1,
                         "mobile": 1, "cell phone": 2, "skype": 1},
    },
    "fax_number": {"Fax number": {"fax": 1, "telefax": 1, "fax number": 2}},
    "email_address": {
        "Email address": {"email": 1, "e-mail": 1, "mail": 1, "e-mail address": 2,
                          "email address": 2, "mail address": 2},
    },
    "social_security_number": {
        "Social security number": {"ssn": 0, "social security number": 3,
                                   "security number": 2, "social number": 2,
                                   "social security": 2, "taxpayer identification number": 4,
                                   "taxpayer number": 3},
    },
    "medical_record_number": {
        "Medical record number": {"mrn": 0, "medical record number": 3, "medical record": 2,
                                  "record number": 2, "patient id": 1, "patient number": 2,
                                  "chart number": 2, "case number": 2},
    },
    "health_plan_beneficiary_number": {
        "Health plan number": {"health plan": 2, "health plan number": 3, "beneficiary": 2,
                               "member id": 1, "insurance number": 2, "policy number": 2,
                               "medicare number": 2, "medicaid number": 2},
    },
    "account_number": {
        "Account number": {"account": 1, "account number": 2, "bank account": 2, "iban": 0,
                           "credit card": 2, "card number": 2},
    },
    "certificate_license_number": {
        "Certificate number": {"license": 1, "licence": 1, "certificate": 1,
                               "license number": 2, "certificate number": 2},
    },
    "vehicle_identifier": {
        "Vehicle identifier": {"vehicle identification number": 5, "vin": 0,
                               "vehicle id": 2, "vehicle identifier": 3,
                               "license plate": 2},
    },
    "device_identifier": {
        "Device identifier": {"serial number": 2, "device identifier": 3, "device id": 1,
                              "imei": 0},
    },
    "url": {
        "URL": {"url": 0, "domain": 1, "domain name": 2, "web address": 2,
                "internet address": 3, "website": 2, "homepage": 2, "webpage": 2,
                "web site": 2, "home page": 2, "web page": 2},
    },
    "ip_address": {
        "IP address": {"ip": 0, "ip address": 2, "ipv4": 1, "ipv6": 1,
                       "internet protocol": 2},
    },
    "biometric_identifier": {
        "Biometric identifier": {"fingerprint": 2, "finger print": 2, "voice print": 2,
                                 "voiceprint": 2, "retina scan": 2, "biometric": 2},
    },
    "photograph": {"Photograph": {"photo": 1, "photograph": 2, "picture": 1, "image": 1,
                                  "face image": 2}},
}

#: Three-digit ZIP areas with 20,000 people or fewer (Safe Harbor: replace with 000);
#: the list ARX uses (HIPAAMatcherZIP), from the 2000 census, as HHS lists them in
#: "Guidance Regarding Methods for De-identification of Protected Health Information in
#: Accordance with the HIPAA Privacy Rule" (2012), section 3.3.
RESTRICTED_ZIP3 = frozenset({"036", "059", "063", "102", "203", "556", "692", "790", "821",
                             "823", "830", "831", "878", "879", "884", "890", "893"})

FIRST_NAMES = frozenset("""
james john robert michael william david richard joseph thomas charles christopher daniel
matthew anthony mark donald steven paul andrew joshua kenneth kevin brian george timothy
ronald edward jason jeffrey ryan jacob gary nicholas eric jonathan stephen larry justin
scott brandon benjamin samuel gregory alexander frank patrick raymond jack dennis jerry
tyler aaron jose adam nathan henry douglas zachary peter kyle ethan walter noah jeremy
christian keith roger terry gerald harold sean austin carl arthur lawrence dylan jesse
jordan bryan billy joe bruce gabriel logan albert willie alan juan wayne elijah randy roy
vincent ralph eugene russell bobby mason philip louis mary patricia jennifer linda
elizabeth barbara susan jessica sarah karen lisa nancy betty margaret sandra ashley
kimberly emily donna michelle carol amanda dorothy melissa deborah stephanie rebecca
sharon laura cynthia kathleen amy angela shirley anna brenda pamela emma nicole helen
samantha katherine christine debra rachel carolyn janet catherine maria heather diane
ruth julie olivia joyce virginia victoria kelly lauren christina joan evelyn judith
megan andrea cheryl hannah jacqueline martha gloria teresa ann sara madison frances
kathryn janice jean abigail alice judy sophia grace denise amber doris marilyn danielle
beverly isabella theresa diana natalie brittany charlotte marie kayla alexis lori
""".split())

LAST_NAMES = frozenset("""
smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez
lopez gonzalez wilson anderson thomas taylor moore jackson martin lee perez thompson
white harris sanchez clark ramirez lewis robinson walker young allen king wright scott
torres nguyen hill flores green adams nelson baker hall rivera campbell mitchell carter
roberts gomez phillips evans turner diaz parker cruz edwards collins reyes stewart
morris morales murphy cook rogers gutierrez ortiz morgan cooper peterson bailey reed
kelly howard ramos kim cox ward richardson watson brooks chavez wood james bennett gray
mendoza ruiz hughes price alvarez castillo sanders patel myers long ross foster jimenez
powell jenkins perry russell sullivan bell coleman butler henderson barnes gonzales
fisher vasquez simmons romero jordan patterson alexander hamilton graham reynolds
griffin wallace moreno west cole hayes bryant herrera gibson ellis tran medina aguilar
stevens murray ford castro marshall owens harrison fernandez mcdonald woods washington
kennedy wells vargas henry chen freeman webb tucker guzman burns crawford olson simpson
porter hunter gordon mendez silva shaw snyder mason dixon munoz hunt hicks holmes palmer
wagner black robertson boyd rose stone salazar fox warren mills meyer rice schmidt
""".split())
